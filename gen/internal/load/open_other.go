//go:build !unix

package load

// openNonBlocking is zero where FIFOs cannot be opened by path.
const openNonBlocking = 0
