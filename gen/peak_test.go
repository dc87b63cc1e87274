package gen

import (
	"fmt"
	"os"
	"syscall"
)

// peakMemory is the peak resident memory of a finished process and the children it
// waited for, where the system tells it.
func peakMemory(ps *os.ProcessState) string {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok && ru != nil {
		return fmt.Sprintf("%d MiB", ru.Maxrss/1024) // kilobytes on Linux
	}
	return "unknown"
}
