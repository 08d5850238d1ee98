package properties

import "github.com/implicitbias/implicitbias/theorems"

func grwClassFigures(seed int64, b Budget) []theorems.Figure { return nil }
func polyFigures(seed int64, b Budget) []theorems.Figure     { return nil }
func klFigures(seed int64, b Budget) []theorems.Figure       { return nil }
