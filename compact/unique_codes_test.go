package compact

import (
	"os"
	"regexp"
	"strconv"
	"testing"
)

// TestPredicateCodes holds the predicate codes to the shaders': each
// PRED_* constant of select.glsl and select_load.glsl has a value of its
// own (so a code added beside the neighbour tests' cannot take theirs),
// and the neighbour tests' are the Go side's.
func TestPredicateCodes(t *testing.T) {
	re := regexp.MustCompile(`\b(PRED_[A-Z_]+) = (\d+)`)
	byValue := map[uint64]string{}
	byName := map[string]uint64{}
	for _, f := range []string{"../shaders/include/select.glsl", "../shaders/include/select_load.glsl"} {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllStringSubmatch(string(src), -1) {
			v, _ := strconv.ParseUint(m[2], 10, 32)
			if other, dup := byValue[v]; dup && other != m[1] {
				t.Errorf("%s and %s are both %d", other, m[1], v)
			}
			byValue[v], byName[m[1]] = m[1], v
		}
	}
	for name, want := range map[string]uint32{"PRED_NONE": predNone, "PRED_FIRST": predFirst, "PRED_EDGE": predEdge} {
		if got, ok := byName[name]; !ok || uint32(got) != want {
			t.Errorf("%s: the GLSL has %d (found %v), Go %d", name, got, ok, want)
		}
	}
	// The neighbour codes take three values each (one per equality).
	for v := predFirst; v < predEdge+3; v++ {
		if name, ok := byValue[uint64(v)]; ok && name != "PRED_FIRST" && name != "PRED_EDGE" {
			t.Errorf("%s = %d lies among the neighbour tests' codes (%d to %d)", name, v, predFirst, predEdge+2)
		}
	}
	if opNames[FirstOfRun] != "first-of-run" || opNames[runEdges] != "run-edges" || len(opNames) != int(runEdges)+1 {
		t.Errorf("opNames %q: the neighbour tests' names at %d and %d", opNames, FirstOfRun, runEdges)
	}
}
