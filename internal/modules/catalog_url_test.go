package modules

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"
)

// A catalog URL may carry credentials or a token: no error shows them.
func TestRemoteCatalogErrorsHideSecrets(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now: the GET fails
	for _, raw := range []string{"http://user:S3cretPw@" + addr + "/c/?token=T0kenSecret#frag", "ftp://user:S3cretPw@x/?token=T0kenSecret"} {
		c, err := newRemoteCatalog(raw, time.Second, nil)
		if err == nil {
			_, err = c.get(context.Background(), c.base, 1024)
		}
		if err == nil {
			t.Fatalf("%s: no error", raw)
		}
		for _, secret := range []string{"S3cretPw", "T0kenSecret", "frag", "user"} {
			if strings.Contains(err.Error(), secret) {
				t.Fatalf("error %q shows %q", err, secret)
			}
		}
	}
}
