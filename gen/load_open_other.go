//go:build !unix

package gen

// openNonBlocking is zero where FIFOs cannot be opened by path.
const openNonBlocking = 0
