// Package spectest writes spec files for the generator's tests.
package spectest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// WriteFiles creates files (path → content) under dir.
func WriteFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Write writes text as name in a fresh folder and returns its path.
func Write(t testing.TB, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// RefSpec is a spec whose one response schema is $ref.
func RefSpec(ref string) string {
	return fmt.Sprintf(`openapi: 3.0.3
info: {title: T, version: "1"}
paths:
  /pets:
    get:
      operationId: listPets
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema:
                $ref: %q
`, ref)
}
