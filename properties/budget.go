package properties

import (
	"os"
	"sync/atomic"
)

// BudgetEnv is the environment variable that sets the run budget of the
// asymptotic checks for `go test` (quick, standard, long); `verify --budget`
// sets it with SetRunBudget.
const BudgetEnv = "IMPLICITBIAS_BUDGET"

// runBudget is the budget whose run lengths the asymptotic properties use
// (flows to smaller losses, longer rate fits). Entries run concurrently, so
// it is read atomically; it is set once before they run.
var runBudget atomic.Int32

func init() {
	if b, err := ParseBudget(os.Getenv(BudgetEnv)); err == nil {
		runBudget.Store(int32(b))
	}
}

// SetRunBudget sets the budget of run lengths (the number of cases is
// Entry.Run's budget argument).
func SetRunBudget(b Budget) { runBudget.Store(int32(b)) }

// RunBudget returns the budget of run lengths: IMPLICITBIAS_BUDGET, or what
// SetRunBudget set; quick by default.
func RunBudget() Budget { return Budget(runBudget.Load()) }

// long reports whether the long runs are asked for.
func long() bool { return RunBudget() == Long }
