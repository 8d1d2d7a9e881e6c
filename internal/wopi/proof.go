package wopi

import (
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"strconv"
	"strings"
	"time"
)

// proofData is the signed data of a WOPI proof: the access token, the
// request URL in upper case and the X-WOPI-TimeStamp, each preceded by its
// length (4 bytes, big-endian); the time stamp as 8 bytes big-endian.
func proofData(token, url string, ts int64) []byte {
	u := strings.ToUpper(url)
	b := make([]byte, 0, 4+len(token)+4+len(u)+4+8)
	b = binary.BigEndian.AppendUint32(b, uint32(len(token)))
	b = append(b, token...)
	b = binary.BigEndian.AppendUint32(b, uint32(len(u)))
	b = append(b, u...)
	b = binary.BigEndian.AppendUint32(b, 8)
	return binary.BigEndian.AppendUint64(b, uint64(ts))
}

// ticksAt is a time in .NET ticks (100 ns since 0001-01-01), the unit of X-WOPI-TimeStamp.
func ticksAt(t time.Time) int64 { return t.UnixNano()/100 + 621355968000000000 }

// proofMaxAge is how old a proof's time stamp may be.
const proofMaxAge = 20 * time.Minute

// checkProof verifies X-WOPI-Proof / X-WOPI-ProofOld against the current
// and old keys of the discovery, as the WOPI specification says: the proof
// with the current key, the old proof with the current key (the server
// rotated its keys) or the proof with the old key (the host has not yet
// read the new discovery). The time stamp must be within proofMaxAge.
func checkProof(d *Discovery, token, url, stamp, proof, proofOld string, now time.Time) bool {
	ts, err := strconv.ParseInt(strings.TrimSpace(stamp), 10, 64)
	if err != nil {
		return false
	}
	if age := time.Duration(ticksAt(now)-ts) * 100; age > proofMaxAge || age < -proofMaxAge {
		return false
	}
	sum := sha256.Sum256(proofData(token, url, ts))
	ok := func(k *rsa.PublicKey, sig string) bool {
		s, err := base64.StdEncoding.DecodeString(strings.TrimSpace(sig))
		return k != nil && err == nil && len(s) > 0 && rsa.VerifyPKCS1v15(k, crypto.SHA256, sum[:], s) == nil
	}
	return ok(d.Proof, proof) || ok(d.Proof, proofOld) || ok(d.OldKey, proof)
}
