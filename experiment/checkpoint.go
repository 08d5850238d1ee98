package experiment

import (
	"encoding/gob"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// checkpointFormat names the layout of a checkpoint file; a file of
// another format is refused rather than misread.
const checkpointFormat = "implicitbias-experiment-checkpoint/1"

// Checkpoint is a stored experiment: the runs' states and a Key that
// names everything else the runs depend on (the command, the data subset),
// which a resumed run must match.
type Checkpoint struct {
	Format string
	Key    string
	Runs   []RunState
}

// SaveCheckpoint writes c to path through a temporary file in the same
// directory and a rename, so that an interruption while writing leaves the
// previous checkpoint whole. gob stores the float64s bit for bit (NaN
// included).
func SaveCheckpoint(path string, c Checkpoint) error {
	c.Format = checkpointFormat
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("experiment: checkpoint: %w", err)
	}
	tmp := f.Name()
	err = gob.NewEncoder(f).Encode(c)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("experiment: checkpoint %s: %w", path, err)
	}
	return nil
}

// LoadCheckpoint reads the checkpoint at path. A missing file wraps
// os.ErrNotExist.
func LoadCheckpoint(path string) (Checkpoint, error) {
	f, err := os.Open(path)
	if err != nil {
		return Checkpoint{}, fmt.Errorf("experiment: checkpoint: %w", err)
	}
	defer f.Close()
	var c Checkpoint
	if err := gob.NewDecoder(f).Decode(&c); err != nil {
		return Checkpoint{}, fmt.Errorf("experiment: checkpoint %s is not readable: %v", path, err)
	}
	if c.Format != checkpointFormat {
		return Checkpoint{}, fmt.Errorf("experiment: checkpoint %s has format %q, want %q", path, c.Format, checkpointFormat)
	}
	if len(c.Runs) == 0 {
		return Checkpoint{}, errors.New("experiment: checkpoint " + path + " holds no run")
	}
	return c, nil
}
