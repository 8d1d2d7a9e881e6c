package release

import (
	"crypto/ed25519"
	"encoding/hex"
	"fmt"
	"strings"
)

// Offer is the vendor's answer to the entitle request (data of
// POST {vendor}/api/v1/entitle): a one-time download link and the signed
// description of the package behind it. The package is the service binary
// itself; signature is the hex-encoded Ed25519 signature of PackageMessage.
type Offer struct {
	DownloadURL string `json:"downloadUrl"`
	Version     string `json:"version"`
	Platform    string `json:"platform"`
	Size        int64  `json:"size"`
	SHA256      string `json:"sha256"`
	Signature   string `json:"signature"`
}

// EntitleRequest is the body of POST {vendor}/api/v1/entitle (SPEC.md).
type EntitleRequest struct {
	LicenseKey     string `json:"licenseKey"`
	InstallBinding string `json:"installBinding"`
	Channel        string `json:"channel"`
	Platform       string `json:"platform"`
	CurrentVersion string `json:"currentVersion"`
}

// PackageMessage is what the vendor signs for a package: product, version,
// platform and the package's SHA-256, one per line.
func PackageMessage(version, platform, sha256hex string) []byte {
	return []byte("coreportal-package\n" + version + "\n" + platform + "\n" + strings.ToLower(sha256hex) + "\n")
}

// Verify checks the offer's signature with the vendor key and that the
// downloaded bytes have the offered SHA-256.
func (o *Offer) Verify(pub ed25519.PublicKey, gotSHA256 []byte) error {
	want, err := hex.DecodeString(o.SHA256)
	if err != nil || len(want) != 32 {
		return fmt.Errorf("the package's sha256 %q is not 64 hex digits", o.SHA256)
	}
	sig, err := hex.DecodeString(o.Signature)
	if err != nil || len(sig) != ed25519.SignatureSize {
		return fmt.Errorf("the package signature is not a hex Ed25519 signature")
	}
	if !ed25519.Verify(pub, PackageMessage(o.Version, o.Platform, o.SHA256), sig) {
		return fmt.Errorf("the package signature does not match the vendor's update key")
	}
	if hex.EncodeToString(gotSHA256) != strings.ToLower(o.SHA256) {
		return fmt.Errorf("the downloaded package's SHA-256 %x differs from the signed %s", gotSHA256, o.SHA256)
	}
	return nil
}
