package build

import (
	"fmt"

	"github.com/retrygen/retrygen/gen/internal/source"
	"github.com/retrygen/retrygen/gen/model"
)

// opWarning adds a warning about op, located at the operation by its JSON pointer
// ("#/paths/~1items/get"), with its fix.
func (b *builder) opWarning(op *model.Operation, fix, format string, args ...any) {
	pointer := opPointer(op)
	b.spec.Warnings.Add(&source.Error{
		Pos:     b.spec.Files.PosOfPointer(pointer),
		Pointer: pointer,
		Op:      source.OpName(op.Method, op.Path, op.OperationID),
		Msg:     fmt.Sprintf(format, args...),
		Fix:     fix,
	})
}
