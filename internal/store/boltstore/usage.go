package boltstore

import (
	bolt "go.etcd.io/bbolt"
)

// Usage is what bbolt itself counts of the database's pages: each bucket's
// keys and pages (bbolt's Bucket.Stats) and the pages on its freelist, so
// that the file's size can be traced to the bucket that takes it.
type Usage struct {
	PageSize int `json:"page_size"`
	// Pages is bbolt's high-water mark: the pages below it are in use or
	// free; the file past it is grown ahead of need.
	Pages     int64         `json:"pages"`
	FreePages int           `json:"free_pages"` // on bbolt's freelist
	Buckets   []BucketUsage `json:"buckets"`
}

// BucketUsage is one top-level bucket's share of the file.
type BucketUsage struct {
	Name string `json:"name"`
	Keys int    `json:"keys"`
	// BranchPages and LeafPages count overflow pages too.
	BranchPages int `json:"branch_pages"`
	LeafPages   int `json:"leaf_pages"`
	// LeafBytes is what the bucket's leaf pages hold: page headers,
	// elements, keys and values.
	LeafBytes int `json:"leaf_bytes"`
}

// Fill is the share of the bucket's leaf pages that holds something.
func (u BucketUsage) Fill(pageSize int) float64 {
	if u.LeafPages == 0 {
		return 0
	}
	return float64(u.LeafBytes) / float64(u.LeafPages*pageSize)
}

// Usage reads bbolt's counts of the database's pages in one read
// transaction. It walks every bucket's tree: a command's look at a file,
// not something to call per request.
func (b *Store) Usage() (Usage, error) {
	var u Usage
	err := b.view("count the pages of "+b.path, func(tx *bolt.Tx) error {
		u.PageSize = tx.DB().Info().PageSize
		u.Pages = tx.Size() / int64(u.PageSize)
		for _, name := range [][]byte{bucketMeta, bucketKV, bucketLog} {
			s := tx.Bucket(name).Stats()
			u.Buckets = append(u.Buckets, BucketUsage{Name: string(name), Keys: s.KeyN,
				BranchPages: s.BranchPageN + s.BranchOverflowN, LeafPages: s.LeafPageN + s.LeafOverflowN, LeafBytes: s.LeafInuse})
		}
		return nil
	})
	u.FreePages = b.db.Stats().FreePageN
	return u, err
}
