package sheets

import (
	"flag"
	"os"
	"testing"
)

// TestMain bounds the time a fuzz run spends minimising each new input to
// 5 s unless -test.fuzzminimizetime is given: minimising a workbook of a
// kilobyte takes Go's minimiser over a minute at 20,000 runs a second, and
// a run of FuzzOpen then counted no executions for most of its time.
func TestMain(m *testing.M) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.fuzzminimizetime" })
	if !given {
		_ = flag.Set("test.fuzzminimizetime", "5s")
	}
	os.Exit(m.Run())
}
