// Command implicitbias checks the theorems on the implicit bias of gradient
// descent against its own training engine.
//
// Usage:
//
//	implicitbias [verify] [--only IDs] [--seed N] [--budget quick|standard|long] [--json] [--report DIR] [--shard I/N]
//	implicitbias verify --hunt ID --drop HYPOTHESIS
//	implicitbias merge FILE.json…
//	implicitbias loss 'FORMULA' [--json]
//	implicitbias train --data FILE --model SPEC --loss exp|logistic|ce|squared|poly|expr:FORMULA [--opt gd|lossbased|flow|momentum|adam] [--lr η] [--tol ε] [--steps N] [--stop-log-loss X] [--seed S] [--record K] [--trace FILE.csv] [--weights …] [--groups FILE] [--l2 μ]
//	implicitbias interpolate --data FILE [--theta0 FILE] [--mu μ --weights FILE]
//	implicitbias bench --workload W1|W2|W3|W4|W5 [--steps N] [--threads T] [--init FILE] [--export FILE] [--json]
//	implicitbias maxmargin --data FILE [--kernel FILE]
//	implicitbias check --run FILE.npz [--model SPEC] [--data FILE] [--loss exp|logistic|ce|squared] [--json] [--report DIR]
//	implicitbias kkt --data FILE [--model SPEC] [--loss exp|logistic] [--lr η] [--steps N] [--window K] [--json]
//	implicitbias help [COMMAND]
//
// Without arguments it prints this usage; -h or --help after any command
// prints the command's help (exit status 0).
//
// Exit status: 0 when nothing was violated, 1 when a check was violated, 2
// for bad input (an unknown ID, a malformed data file, a bad flag value), 3
// when the data of maxmargin or kkt are not separable (kkt: two samples
// with the same features and opposite labels), 4 when train or kkt
// diverged, 130 when interrupted.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/implicitbias/implicitbias/models"
)

// Exit statuses.
const (
	exitOK       = 0
	exitViolated = 1
	exitUsage    = 2
	// exitDiverged: train's iterates overflowed (see divergenceHint).
	exitDiverged = 4
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

type command struct {
	name, summary, usage string
	run                  func(args []string, stdout, stderr io.Writer) int
}

var commands []command

func init() {
	commands = []command{
		{"verify", "run the catalog's checks on generated cases and print a table", verifyUsage, runVerify},
		{"train", "train a model on a CSV dataset and print the final state as JSON", trainUsage + models.SpecGrammar + "\n" + models.NTKGrammar + "\n", runTrain},
		{"merge", "join the JSON results of sharded verify runs", mergeUsage, runMerge},
		{"interpolate", "the interpolator (or L2-regularized solution) GRW training converges to", interpolateUsage, runInterpolate},
		{"bench", "time the engine on a speed workload (W1…W4; peers in bench/)", benchUsage, runBench},
		{"loss", "check a loss formula against the hypotheses (LL B3/B4, XY tail, ZD Thm 8)", lossUsage, runLoss},
		{"maxmargin", "solve the hard-margin SVM without intercept (linear or kernel) and print it as JSON", maxmarginUsage, runMaxMargin},
		{"kkt", "train by GD and print the KKT residuals of the max-margin problem along training", kktUsage, runKKT},
		{"check", "check a recorded training run (PyTorch, NumPy or train --export-npz) against the theorems", checkUsage, runCheck},
		{"experiment", "LL's Table 1 and Fig. 1 on Fashion-MNIST: a CNN without bias, SGD, normalized margins", experimentUsage, runExperiment},
		{"grwclass", "final angles to the SVM direction per GRW scheme, logistic vs polynomial tail (a Markdown table)", grwclassUsage, runGRWClass},
	}
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		// Nothing asked: the usage, not a run of the whole suite.
		help(nil, stderr, stderr)
		return exitUsage
	}
	if args[0] == "help" || isHelpFlag(args[0]) {
		return help(args[1:], stdout, stderr)
	}
	if strings.HasPrefix(args[0], "-") {
		if helpRequested(args) {
			return help([]string{"verify"}, stdout, stderr)
		}
		return runVerify(args, stdout, stderr)
	}
	for _, c := range commands {
		if c.name == args[0] {
			if helpRequested(args[1:]) {
				fmt.Fprint(stdout, c.usage)
				return exitOK
			}
			return c.run(args[1:], stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "implicitbias: unknown command %q (commands: %s; see implicitbias help)\n", args[0], commandNames())
	return exitUsage
}

func isHelpFlag(a string) bool { return a == "-h" || a == "-help" || a == "--help" }

// helpRequested reports whether a command's arguments ask for its help:
// -h, -help or --help before a "--" (the flag package's ErrHelp, caught
// here so that help goes to stdout with exit status 0 for every command). A
// flag value spelled "-h" (--data -h) is read as a request for help too.
func helpRequested(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if isHelpFlag(a) {
			return true
		}
	}
	return false
}

func commandNames() string {
	var names []string
	for _, c := range commands {
		names = append(names, c.name)
	}
	return strings.Join(names, ", ")
}

func help(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		for _, c := range commands {
			if c.name == args[0] {
				fmt.Fprint(stdout, c.usage)
				return exitOK
			}
		}
		fmt.Fprintf(stderr, "implicitbias: no help for %q (commands: %s)\n", args[0], commandNames())
		return exitUsage
	}
	fmt.Fprintln(stdout, "implicitbias checks the theorems on the implicit bias of gradient descent against its own engine.")
	fmt.Fprintln(stdout, "\nCommands:")
	for _, c := range commands {
		fmt.Fprintf(stdout, "  %-12s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(stdout, "\nRun 'implicitbias help COMMAND' (or implicitbias COMMAND -h) for a command's flags and exit statuses.")
	fmt.Fprintln(stdout, "Flags without a command run verify: implicitbias --only LL- is implicitbias verify --only LL-.")
	fmt.Fprintln(stdout, "\nExit status: 0 on success (nothing violated), 1 when a check is violated, 2 for bad input,")
	fmt.Fprintln(stdout, "3 when maxmargin's or kkt's data are not separable, 4 when train or kkt diverged, 130 when interrupted.")
	return exitOK
}

// parseFlags parses args into fs, turning every problem into a one-line
// message: the flag package's own messages, or a stray argument.
func parseFlags(fs *flag.FlagSet, args []string, stderr io.Writer) bool {
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		err = fmt.Errorf("see implicitbias help %s", fs.Name())
	}
	if err == nil && fs.NArg() > 0 {
		err = fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if err != nil {
		fmt.Fprintf(stderr, "implicitbias %s: %v\n", fs.Name(), err)
		return false
	}
	return true
}

// nonEmpty returns an error naming the first of the flags that was given
// with an empty value (an empty --only selects nothing, and must not mean
// "everything", the default).
func nonEmpty(fs *flag.FlagSet, names ...string) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		for _, n := range names {
			if f.Name == n && f.Value.String() == "" && err == nil {
				err = fmt.Errorf("--%s needs a value, got an empty one", n)
			}
		}
	})
	return err
}

// fail prints a one-line error and returns exitUsage.
func fail(stderr io.Writer, cmd string, err error) int {
	msg := strings.ReplaceAll(err.Error(), "\n", "; ")
	fmt.Fprintf(stderr, "implicitbias %s: %s\n", cmd, msg)
	return exitUsage
}
