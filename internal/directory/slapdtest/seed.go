package slapdtest

import (
	"encoding/base64"
	"fmt"
	"strings"
)

// Seed describes the generated directory.
type Seed struct {
	Users  int // users user0000… in ou=teamT,ou=deptD,ou=people (nested OUs)
	Groups int // groups grp000… with users, plus nested groups
	// PhotoEvery gives every n-th user a jpegPhoto (0 = none).
	PhotoEvery int
}

// Login is the uid of user i; Password its password.
func Login(i int) string { return fmt.Sprintf("user%04d", i) }

// Password is the password of a seeded user.
func Password(login string) string { return "pw-" + login }

// UserDN is the DN of user i in the seeded tree.
func (s Seed) UserDN(i int) string {
	return fmt.Sprintf("uid=%s,%s", Login(i), s.ou(i))
}

func (s Seed) ou(i int) string {
	return fmt.Sprintf("ou=team%d,ou=dept%d,ou=people,%s", i%5, i%10, Suffix)
}

// GroupDN is the DN of group g.
func GroupDN(g int) string { return fmt.Sprintf("cn=grp%03d,ou=groups,%s", g, Suffix) }

// Photo is a small JPEG-looking payload (the JPEG magic bytes and a marker).
func Photo(tag string) []byte {
	return append([]byte{0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 'J', 'F', 'I', 'F', 0x00}, []byte("photo "+tag)...)
}

// LDIF renders the seed: OUs, users (manager of user i is user i/10, user 0
// has none, and the last two users manage each other: a manager loop),
// groups (group g holds users with i%Groups == g; every 10th group also
// holds the next group: nested groups).
func (s Seed) LDIF() string {
	var b strings.Builder
	entry := func(lines ...string) {
		for _, l := range lines {
			b.WriteString(l)
			b.WriteByte('\n')
		}
		b.WriteByte('\n')
	}
	entry("dn: ou=people,"+Suffix, "objectClass: organizationalUnit", "ou: people")
	entry("dn: ou=groups,"+Suffix, "objectClass: organizationalUnit", "ou: groups")
	for d := 0; d < 10; d++ {
		entry(fmt.Sprintf("dn: ou=dept%d,ou=people,%s", d, Suffix), "objectClass: organizationalUnit", fmt.Sprintf("ou: dept%d", d))
		for t := 0; t < 5; t++ {
			entry(fmt.Sprintf("dn: ou=team%d,ou=dept%d,ou=people,%s", t, d, Suffix), "objectClass: organizationalUnit", fmt.Sprintf("ou: team%d", t))
		}
	}
	for i := 0; i < s.Users; i++ {
		l := Login(i)
		lines := []string{"dn: " + s.UserDN(i), "objectClass: inetOrgPerson", "uid: " + l, "cn: User " + l, "sn: " + l,
			"displayName: User " + l, "mail: " + l + "@example.org", fmt.Sprintf("title: Engineer %d", i%7),
			fmt.Sprintf("departmentNumber: Dept %d", i%10), fmt.Sprintf("telephoneNumber: +1 555 %04d", i), "userPassword: " + Password(l)}
		switch {
		case i >= 2 && i == s.Users-1:
			lines = append(lines, "manager: "+s.UserDN(i-1))
		case i >= 2 && i == s.Users-2:
			lines = append(lines, "manager: "+s.UserDN(i+1))
		case i > 0:
			lines = append(lines, "manager: "+s.UserDN(i/10))
		}
		if s.PhotoEvery > 0 && i%s.PhotoEvery == 0 {
			lines = append(lines, "jpegPhoto:: "+base64.StdEncoding.EncodeToString(Photo(l)))
		}
		entry(lines...)
	}
	for g := 0; g < s.Groups; g++ {
		lines := []string{"dn: " + GroupDN(g), "objectClass: groupOfNames", fmt.Sprintf("cn: grp%03d", g), fmt.Sprintf("description: Group %d", g)}
		n := 0
		for i := g; i < s.Users; i += s.Groups {
			lines = append(lines, "member: "+s.UserDN(i))
			n++
		}
		if g%10 == 0 && g+1 < s.Groups {
			lines = append(lines, "member: "+GroupDN(g+1))
			n++
		}
		if n == 0 {
			lines = append(lines, "member: "+Admin)
		}
		entry(lines...)
	}
	return b.String()
}
