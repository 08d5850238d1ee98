package main

import (
	"fmt"
	"strconv"
)

// shardFromEnv returns the shard "I/N" of a cluster array job when verify
// is given no --shard: a Slurm job array (SLURM_ARRAY_TASK_ID, counted from
// SLURM_ARRAY_TASK_MIN, of SLURM_ARRAY_TASK_COUNT tasks; sbatch
// --array=0-7 or 1-8) or a Kubernetes indexed Job (JOB_COMPLETION_INDEX,
// set by Kubernetes, of JOB_COMPLETIONS, which the manifest sets to
// spec.completions: Kubernetes exports no count). It returns "" when
// neither is set, and the variables it read, for the note on stderr. A
// malformed or inconsistent value is an error, never a silent full run.
func shardFromEnv(getenv func(string) string) (spec, source string, err error) {
	atoi := func(name string) (int, error) {
		v, err := strconv.Atoi(getenv(name))
		if err != nil {
			return 0, fmt.Errorf("%s=%q is not an integer", name, getenv(name))
		}
		return v, nil
	}
	switch {
	case getenv("SLURM_ARRAY_TASK_ID") != "":
		id, err := atoi("SLURM_ARRAY_TASK_ID")
		if err != nil {
			return "", "", err
		}
		if getenv("SLURM_ARRAY_TASK_COUNT") == "" {
			return "", "", fmt.Errorf("SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not")
		}
		n, err := atoi("SLURM_ARRAY_TASK_COUNT")
		if err != nil {
			return "", "", err
		}
		lo := 0
		if getenv("SLURM_ARRAY_TASK_MIN") != "" {
			if lo, err = atoi("SLURM_ARRAY_TASK_MIN"); err != nil {
				return "", "", err
			}
		}
		if id-lo < 0 || id-lo >= n {
			return "", "", fmt.Errorf("SLURM_ARRAY_TASK_ID=%d is not in %d…%d (SLURM_ARRAY_TASK_MIN, COUNT): use a contiguous --array=0-%d", id, lo, lo+n-1, n-1)
		}
		return fmt.Sprintf("%d/%d", id-lo, n), "SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_COUNT", nil
	case getenv("JOB_COMPLETION_INDEX") != "":
		i, err := atoi("JOB_COMPLETION_INDEX")
		if err != nil {
			return "", "", err
		}
		if getenv("JOB_COMPLETIONS") == "" {
			return "", "", fmt.Errorf("JOB_COMPLETION_INDEX is set but JOB_COMPLETIONS is not: set it to the Job's spec.completions (docs/cluster.md)")
		}
		n, err := atoi("JOB_COMPLETIONS")
		if err != nil {
			return "", "", err
		}
		return fmt.Sprintf("%d/%d", i, n), "JOB_COMPLETION_INDEX, JOB_COMPLETIONS", nil
	}
	return "", "", nil
}
