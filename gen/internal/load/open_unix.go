//go:build unix

package load

import "syscall"

// openNonBlocking makes opening a FIFO return at once rather than wait for a writer.
const openNonBlocking = syscall.O_NONBLOCK
