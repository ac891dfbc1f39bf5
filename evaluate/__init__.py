"""Edge-type evaluation, stratified calibration sets and simulation studies (thesis §6.2.4–6.2.5)."""
