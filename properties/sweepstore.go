package properties

import (
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
)

// Sharding the runs of one sweep over machines (`verify --sweep-store DIR
// --sweep-shard I/N`). `verify --shard` splits a run by entries; the
// section-F entries are single sweeps whose jobs (one per width and seed)
// dominate a long run, so they can be split finer:
//
//  1. every machine runs `verify --budget long --only ZD-T4/L5
//     --sweep-store DIR --sweep-shard I/N` (I = 0 … N−1) with DIR shared
//     (or copied together afterwards): it computes only the jobs of every
//     sweep whose index is ≡ I (mod N), stores each result as
//     DIR/<hash of its key>.gob, and reports the entry inconclusive (the
//     sweep is incomplete on this machine);
//  2. one machine runs the same command without --sweep-shard: every job is
//     found in DIR (a missing one is computed), the sweep is complete and
//     the verdict is the unsharded one, bit for bit (each job is
//     deterministic for its key; gob stores float64 exactly). Its --json
//     output merges with the other entries' shards by `implicitbias merge`
//     (report.Merge) like any shard.
//
// The key of a job names the case (its String, which names everything the
// runs depend on), the run budget, the width and the seed; the file holds
// the key too, and a file whose key differs (a hash collision, a file from
// another version) is recomputed, never trusted.

// ErrSweepIncomplete reports a sweep some of whose jobs belong to other
// shards and are not in the store yet.
var ErrSweepIncomplete = errors.New("sweep incomplete")

// SweepStore is a directory of sweep jobs' results (Runner.Store).
type SweepStore struct {
	dir           string
	shard, shards int
}

// NewSweepStore returns a store that keeps the sweeps' jobs' results in dir
// (created if needed) and, with shards > 0, computes only the jobs with
// index ≡ shard (mod shards). An empty dir returns nil: no store.
func NewSweepStore(dir string, shard, shards int) (*SweepStore, error) {
	if dir == "" {
		if shards > 0 {
			return nil, errors.New("sweep sharding needs a sweep store directory")
		}
		return nil, nil
	}
	if shards < 0 || (shards > 0 && (shard < 0 || shard >= shards)) {
		return nil, fmt.Errorf("sweep shard %d/%d: want 0 ≤ I < N", shard, shards)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("sweep store: %v", err)
	}
	return &SweepStore{dir: dir, shard: shard, shards: shards}, nil
}

// storedRecord is the content of a store file.
type storedRecord[T any] struct {
	Key    string
	Result T
}

// storedJob returns the result of job j with the given key: from the store
// if it is there, computed (and stored) if the job is this shard's (or
// s is nil), and ok = false if it is another shard's.
func storedJob[T any](s *SweepStore, key string, j int, compute func() (T, error)) (res T, ok bool, err error) {
	if s == nil {
		res, err = compute()
		return res, true, err
	}
	sum := sha256.Sum256([]byte(key))
	path := filepath.Join(s.dir, hex.EncodeToString(sum[:12])+".gob")
	if b, err := os.ReadFile(path); err == nil {
		var rec storedRecord[T]
		if gob.NewDecoder(bytes.NewReader(b)).Decode(&rec) == nil && rec.Key == key {
			return rec.Result, true, nil
		}
	}
	if s.shards > 0 && j%s.shards != s.shard {
		return res, false, nil
	}
	if res, err = compute(); err != nil {
		return res, true, err
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(storedRecord[T]{Key: key, Result: res}); err != nil {
		return res, true, fmt.Errorf("sweep store: %v", err)
	}
	tmp, err := os.CreateTemp(s.dir, ".job-*")
	if err != nil {
		return res, true, fmt.Errorf("sweep store: %v", err)
	}
	_, werr := tmp.Write(buf.Bytes())
	cerr := tmp.Close()
	if werr != nil || cerr != nil {
		os.Remove(tmp.Name())
		return res, true, fmt.Errorf("sweep store: %v", errors.Join(werr, cerr))
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return res, true, fmt.Errorf("sweep store: %v", err)
	}
	return res, true, nil
}

// incomplete returns ErrSweepIncomplete with the counts when some job is
// missing, nil otherwise.
func incomplete(s *SweepStore, what string, have []bool) error {
	k := 0
	for _, h := range have {
		if h {
			k++
		}
	}
	if k == len(have) {
		return nil
	}
	return fmt.Errorf("%w: %d of the %d jobs of %s are in %s (this is shard %d/%d); run the other shards, then verify with the store and no --sweep-shard", ErrSweepIncomplete, k, len(have), what, s.dir, s.shard, s.shards)
}

// RunParallel runs jobs 0 … n−1 on GOMAXPROCS goroutines. Every job writes
// only its own result, so the results do not depend on the schedule.
func RunParallel(n int, job func(i int)) {
	work := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < min(runtime.GOMAXPROCS(0), n); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				job(i)
			}
		}()
	}
	for i := 0; i < n; i++ {
		work <- i
	}
	close(work)
	wg.Wait()
}
