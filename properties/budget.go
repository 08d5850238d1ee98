package properties

import (
	"fmt"
	"os"
)

// Budget scales the number of cases (and, for asymptotic checks, the run
// lengths).
type Budget int

const (
	// Quick is the default budget of `go test` and `verify`.
	Quick Budget = iota
	// Standard runs more cases.
	Standard
	// Long runs the asymptotic versions.
	Long
)

// ParseBudget reads quick, standard or long.
func ParseBudget(s string) (Budget, error) {
	switch s {
	case "quick", "":
		return Quick, nil
	case "standard":
		return Standard, nil
	case "long":
		return Long, nil
	}
	return Quick, fmt.Errorf("unknown budget %q (want quick, standard, long)", s)
}

// String returns the budget's name.
func (b Budget) String() string { return [...]string{"quick", "standard", "long"}[b] }

// BudgetEnv is the environment variable that sets the budget of `go test`
// (quick, standard, long): the tests build their Runner with
// BudgetFromEnv; `verify --budget` sets a Runner's budget directly.
const BudgetEnv = "IMPLICITBIAS_BUDGET"

// BudgetFromEnv returns the budget named by IMPLICITBIAS_BUDGET (quick when
// unset).
func BudgetFromEnv() (Budget, error) { return ParseBudget(os.Getenv(BudgetEnv)) }
