package losses

import (
	"strings"
	"testing"
)

func TestByName(t *testing.T) {
	t.Parallel()
	for _, test := range []struct {
		name   string
		kind   Kind
		margin Margin // nil for a loss without a margin loss
	}{
		{"exp", Binary, Exponential{}},
		{"logistic", Binary, Logistic{}},
		{"poly", Binary, ZDPolyTail()},
		{"ce", MultiClass, Logistic{}},
		{"squared", Regression, nil},
	} {
		l, err := ByName(test.name)
		if err != nil {
			t.Errorf("ByName(%q): %v", test.name, err)
			continue
		}
		if l.Name() != test.name || l.Kind() != test.kind {
			t.Errorf("ByName(%q): Name %q, Kind %v; want %q, %v", test.name, l.Name(), l.Kind(), test.name, test.kind)
		}
		m, ok := MarginOf(l)
		if ok != (test.margin != nil) || (ok && m != test.margin) {
			t.Errorf("MarginOf(ByName(%q)) = %v, %v; want %v", test.name, m, ok, test.margin)
		}
	}
	if len(Names) != 5 {
		t.Errorf("Names = %v: the table above lists 5", Names)
	}
	for _, n := range Names {
		if _, err := ByName(n); err != nil {
			t.Errorf("ByName(%q) from Names: %v", n, err)
		}
	}
	if _, err := ByName("hinge"); err == nil || !strings.Contains(err.Error(), "hinge") {
		t.Errorf("ByName(\"hinge\") error = %v, want one naming it", err)
	}
	for k, want := range map[Kind]string{Binary: "binary", MultiClass: "multi-class", Regression: "regression", Kind(7): "unknown"} {
		if k.String() != want {
			t.Errorf("Kind(%d).String() = %q, want %q", int(k), k.String(), want)
		}
	}
}
