"""Environment suites: many generated worlds with tasks checked solvable, exported as datasets."""
