package emit

import (
	"bytes"
	"hash/fnv"
	"math/bits"
	"slices"
	"sync"
	"unicode"
	"unicode/utf8"
)

// A File is one file of a generated client.
type File struct {
	// Part is 1 for the client's first file, the one -o names, which holds the client
	// and its options; 2 and up for the others, which hold operations and types.
	Part int
	// Source is the file's formatted source.
	Source []byte
}

// splitTarget is the size split aims each file at: three quarters of the size that makes
// it split, so that files of unequal shares stay under it.
func splitTarget(above int) int { return max(above/4*3, 1) }

// partHeadroom is room for a part's header line, package clause and imports.
const partHeadroom = 1 << 10

// maxParts caps the parts after the first: far more than any client needs, and few enough
// that no part's name ends in a number that is a build constraint (client_gen_386.go).
const maxParts = 256

// split spreads the client over several files, none over opts.SplitAbove where it can (size
// is that of the declarations, texts, without the client surface): the
// first holds the header, the client surface, the servers, credentials and policies; each
// other declaration goes to one of n more files by a hash of its key (the name of its
// operation or type), n a power of two large enough for each share to stay under the
// target. An operation's methods and its parameter, header and page types share a file. A
// declaration keeps its file when others are added or removed, and the files keep the
// declarations in the order of the single file, so that regenerating after a change of the
// spec changes the lines of what changed and nothing else; only a doubling of n moves
// declarations, when the client has doubled in size.
func split(e *emitter, opts Options, items []item, texts [][]byte, size int) ([]File, error) {
	target := splitTarget(opts.SplitAbove)
	n := min(1<<bits.Len(uint((size+target-1)/target-1)), maxParts) // the least power of two ≥ size/target
	var part []int
	for {
		part = parts(items, n)
		sizes := make([]int, n+2)
		for i, t := range texts {
			sizes[part[i]] += len(t) + 2
		}
		if slices.Max(sizes[2:])+partHeadroom <= opts.SplitAbove || n >= maxParts {
			break
		}
		n *= 2
	}

	bodies := make([][][]byte, n+2)
	for i, t := range texts {
		bodies[part[i]] = append(bodies[part[i]], t)
	}
	files := make([]File, n+1)
	errs := make([]error, n+1)
	var wg sync.WaitGroup
	for p := 1; p <= n+1; p++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			paths := usedImports(bodies[p])
			var head []byte
			var err error
			if p == 1 {
				head, err = e.mainHeader(opts, paths)
			} else {
				head, err = partHeader(opts, paths)
			}
			files[p-1], errs[p-1] = File{Part: p, Source: join(head, bodies[p])}, err
		}()
	}
	wg.Wait()
	if err := firstError(errs); err != nil {
		return nil, err
	}
	return files, nil
}

// parts returns the file of each item when the declarations are spread over n files
// after the first: 1 for the first, 2 to n+1 for the others.
func parts(items []item, n int) []int {
	out := make([]int, len(items))
	for i, it := range items {
		if it.key == "" {
			out[i] = 1
			continue
		}
		h := fnv.New32a()
		h.Write([]byte(it.key))
		out[i] = 2 + int(h.Sum32()%uint32(n))
	}
	return out
}

// partHeader returns the formatted start of a file after the first: the header line, the
// package clause and the imports of paths.
func partHeader(opts Options, paths []string) ([]byte, error) {
	f := newFile(opts.Package)
	f.HeaderComment(headerLine(opts))
	return formatHeader(f, paths)
}

// usedImports returns the paths of importNames that the declarations decls refer to: a
// package name followed by a dot, outside comments and strings and not itself after a
// dot. Generated code names no local, parameter or field after an imported package
// (model.FixedNames reserves them), so each such name is a use of the package.
func usedImports(decls [][]byte) []string {
	used := map[string]bool{}
	for _, d := range decls {
		packageUses(d, used)
	}
	paths := make([]string, 0, len(used))
	for p := range used {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	return paths
}

// importPaths are the paths of importNames by package name.
var importPaths = func() map[string]string {
	m := make(map[string]string, len(importNames))
	for path, name := range importNames {
		m[name] = path
	}
	return m
}()

// packageUses adds to used the path of each package of importNames that the Go source
// src refers to: a name of importPaths and a period as consecutive tokens, the name not
// itself after a period. It reads the tokens as go/scanner does, skipping what cannot
// change the answer: between a name and its period there may be spaces and comments
// that hold no line break (a line break after a name ends the statement); a period keeps
// its place across line breaks and comments; every other token, whatever it is, ends
// both.
func packageUses(src []byte, used map[string]bool) {
	name := ""           // a package name was the last token, not after a period
	afterPeriod := false // a period was the last token
	other := func() { name, afterPeriod = "", false }
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case c == '\n':
			name = ""
			i++
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			name = ""
			if j := bytes.IndexByte(src[i:], '\n'); j >= 0 {
				i += j
			} else {
				i = len(src)
			}
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			end := len(src)
			if j := bytes.Index(src[i+2:], []byte("*/")); j >= 0 {
				end = i + 2 + j + 2
			}
			if bytes.IndexByte(src[i:end], '\n') >= 0 {
				name = ""
			}
			i = end
		case c == '"' || c == '\'':
			i++
			for i < len(src) && src[i] != c && src[i] != '\n' {
				if src[i] == '\\' {
					i++
				}
				i++
			}
			i++
			other()
		case c == '`':
			if j := bytes.IndexByte(src[i+1:], '`'); j >= 0 {
				i += j + 2
			} else {
				i = len(src)
			}
			other()
		case c == '.' && (i+1 >= len(src) || !isDecimal(src[i+1])):
			if i+2 < len(src) && src[i+1] == '.' && src[i+2] == '.' {
				i += 3
				other()
				break
			}
			if name != "" {
				used[importPaths[name]] = true
			}
			name, afterPeriod = "", true
			i++
		case isDecimal(c) || c == '.':
			// A number, its period, exponent and suffix included.
			for i++; i < len(src) && (isDecimal(src[i]) || isASCIILetter(src[i]) || src[i] == '.'); i++ {
			}
			other()
		case c < utf8.RuneSelf && !isASCIILetter(c):
			i++
			other()
		default:
			j := i
			for j < len(src) {
				r, size := rune(src[j]), 1
				if r >= utf8.RuneSelf {
					r, size = utf8.DecodeRune(src[j:])
				}
				if !isLetter(r) && !(j > i && isDigit(r)) {
					break
				}
				j += size
			}
			if j == i { // not a letter: a token go/scanner rejects
				_, size := utf8.DecodeRune(src[i:])
				i += size
				other()
				break
			}
			_, isPackage := importPaths[string(src[i:j])]
			if isPackage && !afterPeriod {
				name = string(src[i:j])
			} else {
				name = ""
			}
			afterPeriod = false
			i = j
		}
	}
}

func isDecimal(c byte) bool     { return '0' <= c && c <= '9' }
func isASCIILetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' }

// isLetter and isDigit are go/scanner's classes of the runes of an identifier.
func isLetter(r rune) bool {
	return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || r == '_' || r >= utf8.RuneSelf && unicode.IsLetter(r)
}

func isDigit(r rune) bool {
	return '0' <= r && r <= '9' || r >= utf8.RuneSelf && unicode.IsDigit(r)
}
