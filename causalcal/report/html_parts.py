"""The pieces of the report's page: escaped cells, tables, embedded data
(docs/design.md §9.15)."""

from __future__ import annotations

import json
import math
from html import escape
from importlib import resources

import numpy as np
import pandas as pd

__all__ = ["asset", "cell", "data_script", "table"]


def asset(name: str) -> str:
    """The text of a file shipped with the report (``static/NAME``: its styles and
    script, inlined in every page).

    Examples
    --------
    >>> from causalcal.report.html_parts import asset
    >>> "pairs-table" in asset("report.js")
    True
    """
    return resources.files("causalcal.report").joinpath("static", name).read_text("utf-8")


def cell(value, digits: int = 3, wrap: bool = False) -> str:
    """A ``<td>``: numbers rounded to ``digits`` with their exact value kept for sorting
    (``data-value``), text escaped; NaN and None empty.

    Examples
    --------
    >>> from causalcal.report.html_parts import cell
    >>> cell(0.123456)
    '<td data-value="0.123456">0.123</td>'
    >>> cell("a<b")
    '<td class="text">a&lt;b</td>'
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "<td></td>"
    if isinstance(value, (bool, np.bool_)):
        return f'<td class="text">{"yes" if value else "no"}</td>'
    if isinstance(value, (int, np.integer)):
        return f'<td data-value="{int(value)}">{int(value)}</td>'
    if isinstance(value, (float, np.floating)):
        return f'<td data-value="{float(value):.6g}">{float(value):.{digits}f}</td>'
    kind = "wrap" if wrap else "text"
    return f'<td class="{kind}">{escape(str(value))}</td>'


def table(header: list[str], rows: list[list], *, table_id: str, sortable: bool = True,
          row_classes: list[str] | None = None, wrap: tuple[int, ...] = (),
          digits: int = 3) -> str:
    """A table (sortable in the page: ``sortable dom``) in a horizontally scrolling box;
    ``row_classes``: each row's class; ``wrap``: columns whose text may wrap; numbers
    rounded to ``digits``.

    Examples
    --------
    >>> from causalcal.report.html_parts import table
    >>> table(["a", "p"], [["x", 0.5]], table_id="t").count("<tr")
    2
    """
    classes = "sortable dom" if sortable else ""
    head = "".join(f'<th scope="col"{" class=text" if k < 2 else ""}>{escape(h)}</th>'
                   for k, h in enumerate(header))
    body = []
    for k, row in enumerate(rows):
        cls = f' class="{row_classes[k]}"' if row_classes else ""
        body.append(f"<tr{cls}>" + "".join(cell(v, digits, j in wrap)
                                          for j, v in enumerate(row))
                    + "</tr>")
    return (f'<div class="scroll"><table id="{table_id}" class="{classes}"><thead><tr>{head}'
            f'</tr></thead><tbody>{"".join(body)}</tbody></table></div>')


def data_script(element_id: str, frame: pd.DataFrame, page_size: int = 50,
                digits: int = 4) -> str:
    """``frame`` as JSON in a ``<script type="application/json">`` the page's script
    reads (columns, rows with numbers rounded to ``digits`` decimals, the page size); the
    text is safe inside the element (``</`` escaped).

    Examples
    --------
    >>> import pandas as pd
    >>> from causalcal.report.html_parts import data_script
    >>> data_script("d", pd.DataFrame({"a": ["x</script>"], "p": [0.123456]}))[-70:]
    '["x<\\\\/script>", 0.1235]], "page_size": 50}</script>'
    """
    columns = list(frame.columns)
    rows = []
    for record in frame.itertuples(index=False):
        rows.append([None if isinstance(v, float) and math.isnan(v) else
                     round(float(v), digits) if isinstance(v, (float, np.floating)) else
                     int(v) if isinstance(v, (int, np.integer)) else str(v)
                     for v in record])
    text = json.dumps({"columns": columns, "rows": rows, "page_size": page_size},
                      ensure_ascii=False, separators=(",", ":"))
    text = text.replace("</", "<\\/").replace("<!--", "<\\!--")
    return f'<script type="application/json" id="{element_id}">{text}</script>'
