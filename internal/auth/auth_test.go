package auth

import (
	"encoding/base64"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

func TestPasswordHashing(t *testing.T) {
	h, err := HashPassword("correct horse")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h, "$argon2id$v=19$m=7168,t=5,p=1$") {
		t.Fatalf("unexpected hash format %q", h)
	}
	h2, _ := HashPassword("correct horse")
	if h == h2 {
		t.Fatal("two hashes of one password are equal: salt missing")
	}
	cases := []struct {
		name, hash, pw string
		ok             bool
		err            bool
	}{
		{"right", h, "correct horse", true, false},
		{"wrong", h, "correct horsE", false, false},
		{"empty", h, "", false, false},
		{"not argon", "$2a$10$abc", "x", false, true},
		{"garbage", "nonsense", "x", false, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ok, err := VerifyPassword(c.hash, c.pw)
			if ok != c.ok || (err != nil) != c.err {
				t.Fatalf("ok=%v err=%v", ok, err)
			}
		})
	}
}

func TestPasswordPolicy(t *testing.T) {
	cases := []struct {
		pw string
		ok bool
	}{{"1234567", false}, {"12345678", true}, {"пароль12", true}, {strings.Repeat("x", 257), false}}
	for _, c := range cases {
		if err := CheckPasswordPolicy("password", c.pw); (err == nil) != c.ok {
			t.Errorf("%q: err=%v", c.pw, err)
		}
	}
}

func TestTokens(t *testing.T) {
	secret := []byte(strings.Repeat("s", 32))
	tk, err := NewTokens(secret, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	good, _, err := tk.Issue("user-1")
	if err != nil {
		t.Fatal(err)
	}
	other, _ := NewTokens([]byte(strings.Repeat("o", 32)), time.Hour)
	foreign, _, _ := other.Issue("user-1")

	expiredIssuer, _ := NewTokens(secret, time.Hour)
	expiredIssuer.now = func() time.Time { return time.Now().Add(-2 * time.Hour) }
	expired, _, _ := expiredIssuer.Issue("user-1")

	none := unsignedToken(t, "user-1")
	hs512, _ := jwt.NewWithClaims(jwt.SigningMethodHS512, jwt.RegisteredClaims{Subject: "user-1", Issuer: "coreportal",
		ExpiresAt: jwt.NewNumericDate(time.Now().Add(time.Hour))}).SignedString(secret)
	noExp, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.RegisteredClaims{Subject: "user-1", Issuer: "coreportal"}).SignedString(secret)

	cases := []struct {
		name  string
		token string
		ok    bool
	}{
		{"valid", good, true},
		{"other key", foreign, false},
		{"expired", expired, false},
		{"alg none", none, false},
		{"other algorithm", hs512, false},
		{"no expiry", noExp, false},
		{"tampered", good[:len(good)-2] + "xx", false},
		{"garbage", "abc.def.ghi", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sub, err := tk.Verify(c.token)
			if (err == nil) != c.ok {
				t.Fatalf("err=%v", err)
			}
			if c.ok && sub != "user-1" {
				t.Fatalf("sub=%q", sub)
			}
		})
	}
	if _, err := NewTokens([]byte("short"), time.Hour); err == nil {
		t.Fatal("short secret accepted")
	}
}

func unsignedToken(t *testing.T, sub string) string {
	t.Helper()
	enc := base64.RawURLEncoding
	head := enc.EncodeToString([]byte(`{"alg":"none","typ":"JWT"}`))
	exp := time.Now().Add(time.Hour).Unix()
	body := enc.EncodeToString([]byte(`{"sub":"` + sub + `","iss":"coreportal","exp":` + itoa(exp) + `}`))
	return head + "." + body + "."
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func TestThrottle(t *testing.T) {
	th := NewThrottle(3, time.Minute)
	now := time.Unix(1000, 0)
	th.now = func() time.Time { return now }
	for i := 0; i < 3; i++ {
		if th.Blocked("k") {
			t.Fatalf("blocked after %d failures", i)
		}
		th.Fail("k")
	}
	if !th.Blocked("k") {
		t.Fatal("not blocked after the limit")
	}
	if th.Blocked("other") {
		t.Fatal("another key blocked")
	}
	now = now.Add(time.Minute)
	if th.Blocked("k") {
		t.Fatal("still blocked after the window")
	}
	th.Fail("k")
	th.Reset("k")
	if th.Blocked("k") {
		t.Fatal("blocked after reset")
	}
}
