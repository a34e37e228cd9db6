"""Random inputs for the whole compiler: valid relay graphs (`graphs`), target
descriptions derived from the built-in ones (`targets`), the differential check against
the reference interpreter with minimisation (`differential`), and malformed inputs for the
parsers (`parsers`). `accel-fuzz` (accel.tools.accel_fuzz) drives them; needs hypothesis."""
