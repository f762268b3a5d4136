package main

import (
	"errors"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
)

// shard is one part of a run split over several machines (--shard i/n):
// part Index of Count, both counted from 1.
type shard struct{ Index, Count int }

// errShard is wrapped by malformed --shard values.
var errShard = errors.New(`--shard wants "i/n" with 1 <= i <= n`)

// parseShard reads "i/n"; "" is the whole run.
func parseShard(s string) (shard, error) {
	if s == "" {
		return shard{1, 1}, nil
	}
	is, ns, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(is)
	n, err2 := strconv.Atoi(ns)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return shard{}, fmt.Errorf("%q: %w", s, errShard)
	}
	return shard{i, n}, nil
}

// pick keeps the files of this shard. A file's shard is a hash of its
// path as given, so every machine of a CI matrix that runs the same
// command on the same tree agrees on the partition whatever order it
// lists the files in, and the shards' outputs concatenate to the whole.
func (s shard) pick(files []string) []string {
	if s.Count == 1 {
		return files
	}
	var out []string
	for _, f := range files {
		h := fnv.New32a()
		h.Write([]byte(f))
		if int(h.Sum32()%uint32(s.Count)) == s.Index-1 {
			out = append(out, f)
		}
	}
	return out
}
