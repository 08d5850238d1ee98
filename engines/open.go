package engines

import (
	"context"
	"os"
)

// EnvEngine names the environment variable through which `go test` runs
// the suite on another engine (docs/engines.md): its value is the engine's
// command line.
const EnvEngine = "IMPLICITBIAS_ENGINE"

// Open returns the engine a command line names: Local for "", else a
// started Process. A Process must be closed (Close) when the run ends.
func Open(ctx context.Context, command string, opts Options) (Engine, func() error, error) {
	if command == "" {
		return Local{}, func() error { return nil }, nil
	}
	p, err := Start(ctx, command, opts)
	if err != nil {
		return nil, nil, err
	}
	return p, p.Close, nil
}

// OpenEnv is Open with the command of EnvEngine.
func OpenEnv(ctx context.Context, opts Options) (Engine, func() error, error) {
	return Open(ctx, os.Getenv(EnvEngine), opts)
}
