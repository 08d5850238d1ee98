package archtest

import (
	"os/exec"
	"testing"
)

// MaxReadingSet bounds the files a reader of one claim opens besides the
// core (theorems/*.go) and the harness (properties/*.go): issue 27 asks
// ≤ 10 for LL-4.4 and ZD-T7, the two claims that spanned 30 and 42 files.
const MaxReadingSet = 10

const module = "github.com/implicitbias/implicitbias/"

func TestReadingSets(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH: the reading sets need `go list -export`")
	}
	for _, c := range []struct {
		claim  string
		starts []string
	}{
		// The entry's property (its claim, its runs and cases) and the check
		// the entry's closure calls.
		{"LL-4.4", []string{module + "properties/kkt.trajectoryEntry", module + "theorems/kkt.KKTConvergence"}},
		// The claim's property (which calls grwclass.GRWDirection) and its
		// control's.
		{"ZD-T7", []string{module + "properties/classification.grwDirectionProperty", module + "properties/classification.polyControl"}},
	} {
		rs, err := ReadingSet(root, []string{"./theorems/...", "./properties/..."}, c.starts, func(rel string) bool {
			return inDir(rel, "theorems") || inDir(rel, "properties")
		})
		if err != nil {
			t.Fatal(err)
		}
		files := SortedReadingSet(rs)
		t.Logf("%s reads %d files besides the core and the harness: %v", c.claim, len(files), files)
		if len(files) > MaxReadingSet {
			t.Errorf("%s: a reader opens %d files besides the core and the harness, more than %d: %v", c.claim, len(files), MaxReadingSet, files)
		}
	}
}

// TestReadingSetFollowsMethods: a method reached through a value of
// another package's type is that type's declaration, so its file counts.
func TestReadingSetFollowsMethods(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH")
	}
	rs, err := ReadingSet(root, []string{"./theorems/..."}, []string{module + "theorems/limits.LinearLimit"}, func(string) bool { return false })
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"theorems/limits/linearlimit.go", "theorems/limits/flow.go", "theorems/limits/gdstep.go", "theorems/verdict.go"} {
		if rs[want] == 0 {
			t.Errorf("LinearLimit's reading set lacks %s: %v", want, SortedReadingSet(rs))
		}
	}
}
