package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/retrygen/retrygen/gen"
)

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "client_gen.go")

	changed, err := writeAtomic(path, []byte("package a\n"))
	if err != nil || !changed {
		t.Fatalf("first write: changed %v, err %v", changed, err)
	}
	if got, _ := os.ReadFile(path); string(got) != "package a\n" {
		t.Fatalf("file holds %q", got)
	}
	fi, _ := os.Stat(path)
	if fi.Mode().Perm() != 0o644 {
		t.Errorf("new file mode %v, want 0644", fi.Mode().Perm())
	}

	// An unchanged file is left untouched, modification time included.
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	changed, err = writeAtomic(path, []byte("package a\n"))
	if err != nil || changed {
		t.Fatalf("same bytes: changed %v, err %v", changed, err)
	}
	if fi, _ := os.Stat(path); !fi.ModTime().Equal(old) {
		t.Errorf("unchanged file was touched: mtime %v, want %v", fi.ModTime(), old)
	}

	// A changed file is replaced, keeping its mode.
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	changed, err = writeAtomic(path, []byte("package b\n"))
	if err != nil || !changed {
		t.Fatalf("new bytes: changed %v, err %v", changed, err)
	}
	if got, _ := os.ReadFile(path); string(got) != "package b\n" {
		t.Errorf("file holds %q", got)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600 kept", fi.Mode().Perm())
	}

	// No temporary file is left behind.
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("folder holds %v, want only client_gen.go", names)
	}
}

func TestWriteFileFailureLeavesOldFile(t *testing.T) {
	// A name so long that the temporary file's name ("." + name + ".tmp" + digits) exceeds
	// the file system's limit: the write fails before anything is replaced, even as root.
	dir := t.TempDir()
	path := filepath.Join(dir, strings.Repeat("c", 240)+".go")
	if err := os.WriteFile(path, []byte("old\n"), 0o644); err != nil {
		t.Skipf("file system does not take a %d-byte name: %v", len(filepath.Base(path)), err)
	}
	if _, err := writeAtomic(path, []byte("new\n")); err == nil {
		t.Fatal("write succeeded although its temporary file cannot be created")
	}
	if got, _ := os.ReadFile(path); string(got) != "old\n" {
		t.Errorf("old file changed to %q", got)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("folder holds %d entries, want the old file only", len(entries))
	}
}

func TestWriteFileRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	if _, err := writeAtomic(dir, []byte("x")); err == nil {
		t.Error("writing over a folder succeeded")
	}
}

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "client_gen.go")
	lines := func(n int, change map[int]string) []byte {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			if s, ok := change[i]; ok {
				b.WriteString(s + "\n")
				continue
			}
			b.WriteString("line " + strings.Repeat("x", i%7) + "\n")
		}
		return []byte(b.String())
	}
	if err := os.WriteFile(path, lines(200, nil), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := checkStale(path, lines(200, nil)); err != nil {
		t.Fatalf("identical file: %v", err)
	}

	err := checkStale(path, lines(200, map[int]string{100: "changed"}))
	var stale *staleError
	if !errors.As(err, &stale) {
		t.Fatalf("changed file: got %v, want *staleError", err)
	}
	for _, want := range []string{"--- " + path, "+++ " + path + " (regenerated)", "@@ -97,7 +97,7 @@", "-line xx\n", "+changed\n"} {
		if !strings.Contains(stale.Diff, want) {
			t.Errorf("diff lacks %q:\n%s", want, stale.Diff)
		}
	}
	if n := strings.Count(stale.Diff, "\n"); n > 12 {
		t.Errorf("diff of one changed line has %d lines:\n%s", n, stale.Diff)
	}

	// A wholly different file gives a diff cut to a readable length.
	err = checkStale(path, []byte(strings.Repeat("other\n", 500)))
	if !errors.As(err, &stale) {
		t.Fatalf("got %v", err)
	}
	if n := strings.Count(stale.Diff, "\n"); n > maxDiffLines+4 {
		t.Errorf("diff has %d lines, want at most about %d", n, maxDiffLines)
	}
	if !strings.Contains(stale.Diff, "\n… 641 more lines\n") {
		t.Errorf("cut diff does not say so:\n%s", stale.Diff)
	}

	if err := checkStale(filepath.Join(dir, "missing.go"), []byte("x")); !errors.As(err, &stale) {
		t.Errorf("missing file: got %v, want *staleError", err)
	}
}

func TestDiffInsertAndDelete(t *testing.T) {
	a := []byte("a\nb\nc\nd\n")
	b := []byte("a\nc\nd\ne\n")
	got := shortDiff("old", "new", a, b)
	for _, want := range []string{"-b\n", "+e\n", " c\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("diff lacks %q:\n%s", want, got)
		}
	}
	if shortDiff("old", "new", a, a) != "" {
		t.Error("diff of equal inputs is not empty")
	}
}

// The output path is inspected before it is read: a device, a FIFO, a symbolic link or
// a read-only file is refused at once, by its name, and left as it was.
func TestOutputPathIsCheckedBeforeReading(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.go")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(dir, "secret.txt")
	if err := os.WriteFile(secret, []byte("token=hunter2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.go")
	if err := os.Symlink(secret, link); err != nil {
		t.Fatal(err)
	}
	readOnly := filepath.Join(dir, "ro.go")
	if err := os.WriteFile(readOnly, []byte("package old\n"), 0o444); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		path, want string
		writeOnly  bool // -check reads a read-only file as any other
	}{
		{"/dev/zero", "/dev/zero is not a regular file", false},
		{fifo, fifo + " is not a regular file", false},
		{link, link + " is a symbolic link", false},
		{readOnly, readOnly + " is read-only (mode 0444)", true},
	} {
		done := make(chan error, 2)
		whats := []string{"write", "check"}
		if tt.writeOnly {
			whats = whats[:1]
		}
		go func() {
			_, err := writeAtomic(tt.path, []byte("package a\n"))
			done <- err
			if !tt.writeOnly {
				done <- checkStale(tt.path, []byte("package a\n"))
			}
		}()
		for _, what := range whats {
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("%s %s: got %v, want %q", what, tt.path, err, tt.want)
				}
				if err != nil && strings.Contains(err.Error(), "hunter2") {
					t.Errorf("%s %s: the error shows the link's target: %v", what, tt.path, err)
				}
			case <-time.After(time.Minute): // a hang is the failure: not a timing bound
				t.Fatalf("%s %s: no answer; it is reading the path", what, tt.path)
			}
		}
	}
	if got, _ := os.ReadFile(readOnly); string(got) != "package old\n" {
		t.Errorf("the read-only file was replaced: %q", got)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the symbolic link was replaced")
	}
}

// A failed write names the path the user gave, not the temporary file.
func TestWriteErrorNamesThePath(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "missing", "client_gen.go")
	_, err := writeAtomic(path, []byte("package a\n"))
	if err == nil || !strings.HasPrefix(err.Error(), "write "+path+": ") || strings.Contains(err.Error(), ".tmp") {
		t.Errorf("got %v, want it to name %s and no temporary file", err, path)
	}
}

// A changed line shows what is removed before what is added.
func TestDiffRemovalFirst(t *testing.T) {
	got := shortDiff("old", "new", []byte("a\nb\nc\n"), []byte("a\nB\nc\n"))
	if i, j := strings.Index(got, "-b\n"), strings.Index(got, "+B\n"); i < 0 || j < 0 || i > j {
		t.Errorf("want -b before +B:\n%s", got)
	}
}

// A hand-written file at -o is not replaced; a generated one is.
func TestGenerateDoesNotReplaceHandWrittenFile(t *testing.T) {
	out := filepath.Join(t.TempDir(), "client.go")
	if err := os.WriteFile(out, []byte("package shop\n\nfunc Mine() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCmd(t, "-package", "shop", "-o", out, goodSpec)
	if code != 1 || !strings.Contains(stderr, out+" was not generated") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	if got, _ := os.ReadFile(out); string(got) != "package shop\n\nfunc Mine() {}\n" {
		t.Error("the hand-written file was replaced")
	}
	if err := os.Remove(out); err != nil {
		t.Fatal(err)
	}
	for range 2 { // a new file, then a generated one regenerated
		if code, _, stderr := runCmd(t, "-package", "shop", "-o", out, goodSpec); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
	}
}

// parts makes a client of n files whose sources say which generation wrote them.
func parts(n int, generation string) []gen.File {
	files := make([]gen.File, n)
	for i := range files {
		files[i] = gen.File{Part: i + 1, Source: []byte("// Code generated by retrygen from api.yaml. DO NOT EDIT.\n\npackage a // " + generation + "\n")}
	}
	return files
}

// A client written in fewer parts than before loses the parts it has no more, but no
// file retrygen did not write; -check reports those parts as stale.
func TestWriteClientRemovesStaleParts(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "client_gen.go")
	if err := writeClient(out, parts(5, "old")); err != nil {
		t.Fatal(err)
	}
	if err := checkClient(out, parts(5, "old")); err != nil {
		t.Fatalf("check of what was written: %v", err)
	}
	err := checkClient(out, parts(3, "old"))
	var stale *staleError
	if !errors.As(err, &stale) || !strings.Contains(err.Error(), "client_gen_4.go") || !strings.Contains(err.Error(), "client_gen_5.go") {
		t.Fatalf("check of a client with fewer parts: %v, want parts 4 and 5 stale", err)
	}
	if err := writeClient(out, parts(3, "new")); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]bool{"client_gen.go": true, "client_gen_2.go": true, "client_gen_3.go": true, "client_gen_4.go": false, "client_gen_5.go": false} {
		data, err := os.ReadFile(filepath.Join(dir, p))
		if got := err == nil; got != want {
			t.Errorf("%s there: %v, want %v", p, got, want)
		}
		if want && !strings.Contains(string(data), "new") {
			t.Errorf("%s holds %q", p, data)
		}
	}

	// A hand-written file with a part's name is neither removed nor replaced.
	hand := filepath.Join(dir, "client_gen_2.go")
	if err := os.WriteFile(hand, []byte("package a\n\nfunc mine() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeClient(out, parts(1, "newer")); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(hand); !strings.Contains(string(data), "mine") {
		t.Errorf("a hand-written client_gen_2.go was changed: %q", data)
	}
	if err := writeClient(out, parts(2, "newer")); err == nil || !strings.Contains(err.Error(), "was not generated") {
		t.Errorf("writing over a hand-written part: %v, want a refusal", err)
	}
}

// A part that cannot be replaced leaves every file of the client as it was.
func TestWriteClientIsAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "client_gen.go")
	if err := writeClient(out, parts(3, "old")); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(dir, "client_gen_3.go"), 0o444); err != nil {
		t.Fatal(err)
	}
	if err := writeClient(out, parts(3, "new")); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Fatalf("writing over a read-only part: %v, want an error", err)
	}
	for _, p := range []string{"client_gen.go", "client_gen_2.go", "client_gen_3.go"} {
		if data, _ := os.ReadFile(filepath.Join(dir, p)); !strings.Contains(string(data), "old") {
			t.Errorf("%s holds %q after a failed write, want the old content", p, data)
		}
	}
	if tmp, _ := filepath.Glob(filepath.Join(dir, ".*tmp*")); len(tmp) > 0 {
		t.Errorf("temporary files left: %v", tmp)
	}
}

// A folder or a symbolic link with a part's name beside a one-file client fails the run
// before any file is written: the client stays as it was, or absent.
func TestWriteClientChecksStalePartsFirst(t *testing.T) {
	for _, obstacle := range []string{"folder", "symlink"} {
		for _, existing := range []bool{false, true} {
			dir := t.TempDir()
			out := filepath.Join(dir, "client_gen.go")
			if existing {
				if err := writeClient(out, parts(1, "old")); err != nil {
					t.Fatal(err)
				}
			}
			part := filepath.Join(dir, "client_gen_2.go")
			var err error
			if obstacle == "folder" {
				err = os.Mkdir(part, 0o755)
			} else {
				err = os.Symlink(filepath.Join(dir, "elsewhere.go"), part)
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := writeClient(out, parts(1, "new")); err == nil || !strings.Contains(err.Error(), part) {
				t.Errorf("%s, client there %v: got %v, want an error naming %s", obstacle, existing, err, part)
			}
			data, err := os.ReadFile(out)
			switch {
			case existing && !strings.Contains(string(data), "old"):
				t.Errorf("%s: the client holds %q after a failed run, want the old content", obstacle, data)
			case !existing && err == nil:
				t.Errorf("%s: the client was written by a failed run", obstacle)
			}
			if tmp, _ := filepath.Glob(filepath.Join(dir, ".*tmp*")); len(tmp) > 0 {
				t.Errorf("%s: temporary files left: %v", obstacle, tmp)
			}
		}
	}
}
