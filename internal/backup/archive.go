// Package backup writes and restores backup archives and runs the backup
// journal (validate, backup, restore) executed by the backup runner.
//
// An archive is a tar file: blobs/<key> (every blob a table references in a
// column named blob_key), db/<table>.jsonl.gz (every table, read in one
// read-only snapshot transaction: a header line with the column names and
// kinds, then one JSON array per row) and manifest.json last (format version,
// schema version, dialect, counts, SHA-256 and size of every part).
package backup

import (
	"archive/tar"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/klauspost/compress/gzip"

	"coreportal/internal/blob"
	"coreportal/internal/store"
)

// gzipLevel of the table parts: github.com/klauspost/compress at level 1
// compresses the row stream several times faster than compress/gzip's
// default level, for archives a little larger (the blobs, most of an
// archive's bytes, are stored as they are). Any gzip reader reads them.
var gzipLevel = gzip.BestSpeed

// FormatVersion of the archives this code writes; it reads versions 1
// (unsigned, secrets in clear: restored only as unverified, without their
// secrets) to FormatVersion.
const FormatVersion = 2

// Excluded tables are never backed up nor overwritten by a restore: the
// migration bookkeeping, the application log, the instance heartbeats and
// the backup journal itself (it must survive the restore it records).
var Excluded = map[string]bool{"schema_migrations": true, "app_log": true, "instance_stats": true, "backups": true}

// Derived tables (the search index) are not archived: a restore empties them
// (derivedSeed puts back the rows their code expects) and the search-crawler
// job the restore queues rebuilds them.
var Derived = map[string]bool{"search_entries": true, "search_state": true, "search_scopes": true, "search_bits": true, "search_bits_pending": true}

// derivedSeed re-creates, after a restore emptied the derived tables, the
// singleton rows their migrations seeded (the crawler's state row).
var derivedSeed = map[string]string{"search_state": "INSERT INTO search_state (id, checkpoint) VALUES (1, '')"}

// Merged tables are archived but never emptied by a restore: the archived
// rows are added to those present (by primary key), so the append-only audit
// log keeps the records written after the backup, and a restore into a new
// database brings the history along.
var Merged = map[string]bool{"audit_log": true}

// lateTables are maintained by triggers of the dynamic tables: they are
// restored after them.
var lateTables = map[string]bool{"list_item_counts": true}

// Manifest describes an archive.
type Manifest struct {
	FormatVersion int         `json:"formatVersion"`
	SchemaVersion int         `json:"schemaVersion"`
	Dialect       string      `json:"dialect"`
	CreatedAt     time.Time   `json:"createdAt"`
	Tables        []TablePart `json:"tables"`
	Blobs         []BlobPart  `json:"blobs"`
	Counts        Counts      `json:"counts"`
	Secrets       SecretsInfo `json:"secrets"`
	Protection    *Protection `json:"protection,omitempty"`
}

// Counts summarise an archive.
type Counts struct {
	Tables    int   `json:"tables"`
	Rows      int64 `json:"rows"`
	Blobs     int   `json:"blobs"`
	BlobBytes int64 `json:"blobBytes"`
}

// TablePart is one table's part.
type TablePart struct {
	Name    string `json:"name"`
	Dynamic bool   `json:"dynamic"`
	Rows    int64  `json:"rows"`
	Part    string `json:"part"`
	Size    int64  `json:"size"`
	SHA256  string `json:"sha256"`
}

// BlobPart is one blob's part.
type BlobPart struct {
	Key    string `json:"key"`
	Part   string `json:"part"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

type header struct {
	Table   string         `json:"table"`
	Columns []store.Column `json:"columns"`
}

// hashWriter counts and hashes what passes through.
type hashWriter struct {
	h hash.Hash
	n int64
}

func (w *hashWriter) Write(p []byte) (int, error) {
	w.h.Write(p)
	w.n += int64(len(p))
	return len(p), nil
}

// Write takes a consistent snapshot of db and the blobs it references and
// writes the archive to w. Table parts are buffered in tmp (a temp-file
// factory) because tar needs each part's size before its bytes. With key
// the withheld secrets are encrypted into the archive and the manifest is
// signed; without one they are left out and the manifest is not signed.
func Write(ctx context.Context, db *store.DB, blobs blob.Store, w io.Writer, tmp func() (TempFile, error), key *Key) (*Manifest, error) {
	static, err := db.MigrationTables()
	if err != nil {
		return nil, err
	}
	m := &Manifest{FormatVersion: FormatVersion, Dialect: db.Dialect.String(), CreatedAt: time.Now().UTC()}
	tw := tar.NewWriter(w)
	buf := make([]byte, copyBufSize)
	var keys []string
	bag := newBag()
	err = db.Snapshot(ctx, func(ctx context.Context, q store.Querier) error {
		if m.SchemaVersion, err = db.SchemaVersion(ctx); err != nil {
			return err
		}
		tables, err := db.Tables(ctx)
		if err != nil {
			return err
		}
		for _, t := range tables {
			if Excluded[t] || Derived[t] {
				continue
			}
			cols, err := db.Columns(ctx, t)
			if err != nil {
				return err
			}
			f, err := tmp()
			if err != nil {
				return err
			}
			part, tk, err := dumpTable(ctx, q, t, cols, f, bag.scrubber(t, cols))
			if err == nil {
				part.Dynamic = !static[t]
				err = addFile(tw, part.Part, f, part.Size, buf)
			}
			f.Close()
			if err != nil {
				return err
			}
			keys = append(keys, tk...)
			m.Tables = append(m.Tables, part)
			m.Counts.Rows += part.Rows
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	m.Counts.Tables = len(m.Tables)
	sort.Strings(keys)
	for i, k := range keys {
		if i > 0 && keys[i-1] == k || k == "" {
			continue
		}
		bp, err := addBlob(ctx, tw, blobs, k, buf)
		if errors.Is(err, blob.ErrNotFound) {
			continue // a row whose content is already gone (purged after the snapshot)
		}
		if err != nil {
			return nil, err
		}
		m.Blobs = append(m.Blobs, bp)
		m.Counts.Blobs++
		m.Counts.BlobBytes += bp.Size
	}
	if err := finish(tw, m, bag, key); err != nil {
		return nil, err
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("close archive: %w", err)
	}
	return m, nil
}

// finish writes the secrets part, the manifest and its signature.
func finish(tw *tar.Writer, m *Manifest, bag *secretBag, key *Key) error {
	m.Secrets.Withheld = bag.names()
	var d derived
	if key != nil {
		var err error
		if d, m.Protection, err = key.protect(); err != nil {
			return err
		}
		plain, err := json.Marshal(bag)
		if err != nil {
			return fmt.Errorf("encode secrets: %w", err)
		}
		sealed, err := d.seal(plain)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(sealed)
		m.Secrets.Encrypted, m.Secrets.Cipher, m.Secrets.Part = true, cipherName, secretsPart
		m.Secrets.Size, m.Secrets.SHA256 = int64(len(sealed)), hex.EncodeToString(sum[:])
		if err := addBytes(tw, secretsPart, sealed, m.CreatedAt); err != nil {
			return err
		}
	}
	raw, err := json.MarshalIndent(m, "", " ")
	if err != nil {
		return fmt.Errorf("encode manifest: %w", err)
	}
	if err := addBytes(tw, "manifest.json", raw, m.CreatedAt); err != nil {
		return err
	}
	if key != nil {
		return addBytes(tw, sigPart, d.sign(raw), m.CreatedAt)
	}
	return nil
}

func addBytes(tw *tar.Writer, name string, raw []byte, at time.Time) error {
	if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o600, Size: int64(len(raw)), ModTime: at}); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	if _, err := tw.Write(raw); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	return nil
}

// TempFile is a scratch file for one part.
type TempFile interface {
	io.ReadWriteSeeker
	Close() error
}

func dumpTable(ctx context.Context, q store.Querier, table string, cols []store.Column, f TempFile, scrub func([]any) bool) (TablePart, []string, error) {
	part := TablePart{Name: table, Part: "db/" + table + ".jsonl.gz"}
	hw := &hashWriter{h: sha256.New()}
	gz, err := gzip.NewWriterLevel(io.MultiWriter(f, hw), gzipLevel)
	if err != nil {
		return part, nil, err
	}
	// rows are read and encoded here while the previous chunk is compressed
	// on the other goroutine
	aw := newAsyncWriter(gz)
	keys, err := encodeRows(ctx, q, table, cols, aw, &part, scrub)
	if cerr := aw.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return part, nil, fmt.Errorf("dump %s: %w", table, err)
	}
	if err := gz.Close(); err != nil {
		return part, nil, fmt.Errorf("dump %s: %w", table, err)
	}
	part.Size, part.SHA256 = hw.n, hex.EncodeToString(hw.h.Sum(nil))
	_, err = f.Seek(0, io.SeekStart)
	return part, keys, err
}

// encodeRows writes the header line and one JSON array per row of table to
// w and returns the blob keys the rows reference. scrub, when set, takes the
// secrets out of each row (false: the row is left out).
func encodeRows(ctx context.Context, q store.Querier, table string, cols []store.Column, w io.Writer, part *TablePart, scrub func([]any) bool) ([]string, error) {
	enc := json.NewEncoder(w)
	if err := enc.Encode(header{Table: table, Columns: cols}); err != nil {
		return nil, err
	}
	names := make([]string, len(cols))
	blobCol := -1
	for i, c := range cols {
		names[i] = store.QuoteIdent(c.Name)
		if c.Name == "blob_key" || strings.HasSuffix(c.Name, "_blob_key") {
			blobCol = i
		}
	}
	rows, err := q.QueryContext(ctx, "SELECT "+strings.Join(names, ", ")+" FROM "+store.QuoteIdent(table))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var keys []string
	out := make([]any, len(cols))
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		for i, v := range vals {
			out[i] = encodeValue(v, cols[i].Kind)
		}
		if scrub != nil && !scrub(out) {
			continue
		}
		if blobCol >= 0 {
			if k, ok := out[blobCol].(string); ok {
				keys = append(keys, k)
			}
		}
		if err := enc.Encode(out); err != nil {
			return nil, err
		}
		part.Rows++
	}
	return keys, rows.Err()
}

// encodeValue makes a scanned value portable between dialects.
func encodeValue(v any, kind string) any {
	switch x := v.(type) {
	case nil:
		return nil
	case time.Time:
		return map[string]string{"t": x.UTC().Format(time.RFC3339Nano)}
	case []byte:
		if kind == "bytes" {
			return map[string]string{"b": base64.StdEncoding.EncodeToString(x)}
		}
		return string(x)
	case [16]byte:
		return fmt.Sprintf("%x-%x-%x-%x-%x", x[0:4], x[4:6], x[6:8], x[8:10], x[10:16])
	}
	return v
}

// copyBufSize is the buffer of addFile: 1 MB blocks instead of io.Copy's
// 32 KB cut the system calls of the blob copies.
const copyBufSize = 1 << 20

func addFile(tw *tar.Writer, name string, r io.Reader, size int64, buf []byte) error {
	if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o600, Size: size, ModTime: time.Now().UTC()}); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	n, err := io.CopyBuffer(tw, io.LimitReader(r, size), buf)
	if err == nil && n < size {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	return nil
}

func addBlob(ctx context.Context, tw *tar.Writer, blobs blob.Store, key string, buf []byte) (BlobPart, error) {
	size, err := blobs.Stat(ctx, key)
	if err != nil {
		return BlobPart{}, err
	}
	rc, err := blobs.Get(ctx, key)
	if err != nil {
		return BlobPart{}, err
	}
	defer rc.Close()
	bp := BlobPart{Key: key, Part: "blobs/" + key, Size: size}
	hw := &hashWriter{h: sha256.New()}
	if err := addFile(tw, bp.Part, io.TeeReader(rc, hw), size, buf); err != nil {
		return bp, fmt.Errorf("blob %s: %w", key, err)
	}
	bp.SHA256 = hex.EncodeToString(hw.h.Sum(nil))
	return bp, nil
}
