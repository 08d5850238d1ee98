package properties

import "os"

// BudgetEnv is the environment variable that sets the budget of `go test`
// (quick, standard, long): the tests build their Runner with
// BudgetFromEnv; `verify --budget` sets a Runner's budget directly.
const BudgetEnv = "IMPLICITBIAS_BUDGET"

// BudgetFromEnv returns the budget named by IMPLICITBIAS_BUDGET (quick when
// unset).
func BudgetFromEnv() (Budget, error) { return ParseBudget(os.Getenv(BudgetEnv)) }
