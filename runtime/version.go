package runtime

// SupportPackageIsVersion2 is referenced by every file retrygen generates. A generated
// client that needs a newer runtime than the one it is built against fails to compile with
// this name in the message, instead of misbehaving at run time. Version 2 is the first
// whose clients call the helper package runtime/wire instead of carrying their own copy;
// version 1 clients must be regenerated.
const SupportPackageIsVersion2 = true
