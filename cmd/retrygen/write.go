package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"

	"github.com/retrygen/retrygen/gen"
)

// maxOutputSize bounds the output file retrygen reads to compare: a file larger than any
// client it writes is not one of its files.
const maxOutputSize = 256 << 20

// inspectOutput looks at the output path before anything reads it. It must be absent, or
// a regular file that is writable and not over maxOutputSize: not a symbolic link (whose
// target, perhaps a secret, -check would print in its diff), a device such as /dev/zero,
// a FIFO or a folder. It returns the file's info, or nil when there is no file.
func inspectOutput(path string) (fs.FileInfo, error) {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("%s: %w", path, bareOSError(err))
	case fi.Mode()&fs.ModeSymlink != 0:
		return nil, fmt.Errorf("%s is a symbolic link: retrygen reads and writes only regular files; name the file itself", path)
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("%s is not a regular file (%s)", path, fi.Mode().Type())
	case fi.Size() > maxOutputSize:
		return nil, fmt.Errorf("%s holds %d bytes, more than any client retrygen writes (%d): not a generated file", path, fi.Size(), maxOutputSize)
	}
	return fi, nil
}

// readOutput reads the output file at path, after inspectOutput; nil when absent.
func readOutput(path string) (data []byte, fi fs.FileInfo, err error) {
	if fi, err = inspectOutput(path); fi == nil || err != nil {
		return nil, nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, bareOSError(err))
	}
	defer f.Close()
	data, err = io.ReadAll(io.LimitReader(f, maxOutputSize+1))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, bareOSError(err))
	}
	return data, fi, nil
}

// bareOSError drops the path from an *fs.PathError, so that a message names the path the
// user gave rather than a temporary file.
func bareOSError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// generatedLine matches the first line of a file retrygen (or another generator) wrote.
var generatedLine = regexp.MustCompile(`^// Code generated .* DO NOT EDIT\.$`)

// generatedOnly refuses to replace old, the bytes of the file at path, when it was not
// generated: its first line is not "// Code generated ... DO NOT EDIT.". A -o that names a
// hand-written file by mistake would otherwise replace it.
func generatedOnly(path string, old []byte) error {
	first, _, _ := bytes.Cut(old, []byte("\n"))
	if !generatedLine.Match(bytes.TrimSuffix(first, []byte("\r"))) {
		return fmt.Errorf("%s was not generated (its first line is not \"// Code generated ... DO NOT EDIT.\"): retrygen does not replace it; remove it or name another file with -o", path)
	}
	return nil
}

// writeAtomic writes data to path atomically: to a temporary file in the same folder, then
// renamed over path, so that a reader never sees a half-written file and a failed write
// leaves the old one intact. A file that already holds data is left untouched (its
// modification time too); changed reports whether anything was written. A read-only file
// is not replaced. Errors name path, never the temporary file.
func writeAtomic(path string, data []byte) (changed bool, err error) {
	return writeChecked(path, data, nil)
}

// writeChecked is writeAtomic that first lets check refuse to replace the existing file,
// given its bytes; the file is read once.
func writeChecked(path string, data []byte, check func(path string, old []byte) error) (changed bool, err error) {
	w, err := prepareWrite(path, data, check)
	if err != nil || w == nil {
		return false, err
	}
	return true, w.commit()
}

// A pendingWrite is a file's new content, written in full to a temporary file beside it
// and not yet renamed over it.
type pendingWrite struct {
	path, tmp string
}

// prepareWrite writes data to a temporary file beside path, after check accepted the
// existing file; it returns nil when path already holds data.
func prepareWrite(path string, data []byte, check func(path string, old []byte) error) (w *pendingWrite, err error) {
	old, fi, err := readOutput(path)
	if err != nil {
		return nil, err
	}
	mode := fs.FileMode(0o644)
	if fi != nil {
		if bytes.Equal(old, data) {
			return nil, nil
		}
		if check != nil {
			if err := check(path, old); err != nil {
				return nil, err
			}
		}
		mode = fi.Mode().Perm()
		if mode&0o200 == 0 {
			return nil, fmt.Errorf("%s is read-only (mode %#o): make it writable to regenerate it", path, mode)
		}
	}
	defer func() {
		if err != nil {
			err = fmt.Errorf("write %s: %w", path, bareOSError(err))
		}
	}()
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp*")
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return nil, err
	}
	if err = tmp.Chmod(mode); err != nil {
		return nil, err
	}
	if err = tmp.Sync(); err != nil {
		return nil, err
	}
	if err = tmp.Close(); err != nil {
		return nil, err
	}
	return &pendingWrite{path: path, tmp: tmp.Name()}, nil
}

// commit renames the temporary file over the file.
func (w *pendingWrite) commit() error {
	if err := os.Rename(w.tmp, w.path); err != nil {
		os.Remove(w.tmp)
		return fmt.Errorf("write %s: %w", w.path, bareOSError(err))
	}
	return nil
}

// discard removes the temporary file.
func (w *pendingWrite) discard() { os.Remove(w.tmp) }

// writeClient writes the files of a client whose first file is out, and removes the
// parts of an earlier, larger client that this one has no more. Every file is written
// to a temporary file, and every path the client touches is inspected (the stale parts
// too), before any is renamed, so that a failure leaves all of them as they were.
func writeClient(out string, files []gen.File) error {
	var pending []*pendingWrite
	discard := func() {
		for _, w := range pending {
			w.discard()
		}
	}
	for _, f := range files {
		w, err := prepareWrite(gen.PartName(out, f.Part), f.Source, generatedOnly)
		if err != nil {
			discard()
			return err
		}
		if w != nil {
			pending = append(pending, w)
		}
	}
	stale, err := staleParts(out, len(files))
	if err != nil {
		discard()
		return err
	}
	for i, w := range pending {
		if err := w.commit(); err != nil {
			pending = pending[i+1:]
			discard()
			return err
		}
	}
	for _, path := range stale {
		if err := os.Remove(path); err != nil {
			return fmt.Errorf("remove %s: %w", path, bareOSError(err))
		}
	}
	return nil
}

// retrygenLine matches the first line of a file retrygen wrote.
var retrygenLine = regexp.MustCompile(`^// Code generated by retrygen .* DO NOT EDIT\.$`)

// staleParts returns the files named as parts of the client whose first file is out
// beyond its n files, that retrygen wrote: parts an earlier generation wrote and this
// one does not. It stops at the first part that is missing or that retrygen did not
// write, which it leaves alone.
func staleParts(out string, n int) ([]string, error) {
	var stale []string
	for p := n + 1; ; p++ {
		path := gen.PartName(out, p)
		data, fi, err := readOutput(path)
		if err != nil {
			return nil, err
		}
		first, _, _ := bytes.Cut(data, []byte("\n"))
		if fi == nil || !retrygenLine.Match(bytes.TrimSuffix(first, []byte("\r"))) {
			return stale, nil
		}
		stale = append(stale, path)
	}
}

// checkClient is checkStale for each file of a client whose first file is out, and
// reports the parts of an earlier generation that are there no more to be.
func checkClient(out string, files []gen.File) error {
	var errs []error
	for _, f := range files {
		if err := checkStale(gen.PartName(out, f.Part), f.Source); err != nil {
			errs = append(errs, err)
		}
	}
	stale, err := staleParts(out, len(files))
	if err != nil {
		return err
	}
	for _, path := range stale {
		errs = append(errs, &staleError{Path: path, Diff: "(the client has no such part now: remove the file)"})
	}
	return errors.Join(errs...)
}

// staleError reports that a generated file differs from what the spec generates now.
type staleError struct {
	Path string
	Diff string // a short unified diff, file on disk first
}

func (e *staleError) Error() string {
	return fmt.Sprintf("%s is stale: regenerate it\n%s", e.Path, e.Diff)
}

// checkStale compares the file at path with want, as `retrygen -check` does. It returns nil
// when they are equal, a *staleError with a short diff when they differ, and the read
// error when the file cannot be read (a missing file is stale, not an I/O error).
func checkStale(path string, want []byte) error {
	got, fi, err := readOutput(path)
	if err != nil {
		return err
	}
	if fi == nil {
		return &staleError{Path: path, Diff: "(the file does not exist)"}
	}
	if bytes.Equal(got, want) {
		return nil
	}
	return &staleError{Path: path, Diff: shortDiff(path, path+" (regenerated)", got, want)}
}
