package runtime

// SupportPackageIsVersion1 is referenced by every file retrygen generates. A generated
// client that needs a newer runtime than the one it is built against fails to compile with
// this name in the message, instead of misbehaving at run time.
const SupportPackageIsVersion1 = true
