package runtime

import (
	"crypto/rand"
	"encoding/hex"
)

// newUUID returns a random (version 4, RFC 9562) UUID in its canonical text form, from
// crypto/rand: 122 random bits, as the idempotency-key draft recommends.
func newUUID() string {
	var u [16]byte
	rand.Read(u[:])         // never fails (Go 1.24+: it crashes the program instead)
	u[6] = u[6]&0x0f | 0x40 // version 4
	u[8] = u[8]&0x3f | 0x80 // variant 10
	var s [36]byte
	hex.Encode(s[0:8], u[0:4])
	s[8] = '-'
	hex.Encode(s[9:13], u[4:6])
	s[13] = '-'
	hex.Encode(s[14:18], u[6:8])
	s[18] = '-'
	hex.Encode(s[19:23], u[8:10])
	s[23] = '-'
	hex.Encode(s[24:], u[10:])
	return string(s[:])
}

// NewIdempotencyKey returns a fresh idempotency key: a random (version 4) UUID from
// crypto/rand, as the engine sends under a policy's IdempotencyKey header. Generated code
// calls it for a key carried in the request body.
func NewIdempotencyKey() string { return newUUID() }
