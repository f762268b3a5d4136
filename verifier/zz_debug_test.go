package verifier_test

import (
	"os"
	"testing"

	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/verifier"
)

func TestZZDump(t *testing.T) {
	path, name := os.Getenv("ZZ_OBJ"), os.Getenv("ZZ_PROG")
	if path == "" {
		t.Skip()
	}
	obj, err := loader.Open(path, loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range obj.Programs {
		if p.Name == name {
			res := verifier.Verify(obj, p, verifier.Options{LogLevel: 2})
			os.WriteFile(os.Getenv("ZZ_OUT"), []byte(res.Log), 0o644)
			t.Log(res.Verdict(), res.Stats.InsnProcessed, res.Err)
		}
	}
}
