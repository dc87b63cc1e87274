package emit

import (
	"go/scanner"
	"go/token"
	"hash/fnv"
	"math/bits"
	"slices"
	"sync"
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
	byName := make(map[string]string, len(importNames))
	for path, name := range importNames {
		byName[name] = path
	}
	used := map[string]bool{}
	for _, d := range decls {
		var s scanner.Scanner
		fset := token.NewFileSet()
		s.Init(fset.AddFile("", -1, len(d)), d, nil, 0)
		prev, name := token.ILLEGAL, ""
		for {
			_, tok, lit := s.Scan()
			if tok == token.EOF {
				break
			}
			if tok == token.PERIOD && name != "" {
				used[byName[name]] = true
			}
			name = ""
			if tok == token.IDENT && prev != token.PERIOD {
				if _, ok := byName[lit]; ok {
					name = lit
				}
			}
			prev = tok
		}
	}
	paths := make([]string, 0, len(used))
	for p := range used {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	return paths
}
