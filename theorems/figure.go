package theorems

// Figure is evidence a check can show a person: curves or points over a
// common x axis, drawn by package report.
type Figure struct {
	// Name is the file-name stem, unique within an entry (letters, digits,
	// '-' and '_').
	Name                  string
	Title, XLabel, YLabel string
	// Caption says what the figure shows (the case it was drawn from), below
	// the figure in the report.
	Caption string
	Series  []Series
	// Lines are horizontal reference lines, such as a bound.
	Lines []Line
}

// Series is one curve or point set.
type Series struct {
	Name string
	X, Y []float64
	// Points draws markers instead of a line.
	Points bool
}

// Line is a horizontal line at Y.
type Line struct {
	Name string
	Y    float64
}
