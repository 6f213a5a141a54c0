package reduce_test

import (
	"os"
	"testing"

	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
)

// TestMain releases the context the tests share (vktest.Shared) after the
// last one, failing the run for anything the validation layer reports
// then.
func TestMain(m *testing.M) { os.Exit(vktest.Main(m)) }
