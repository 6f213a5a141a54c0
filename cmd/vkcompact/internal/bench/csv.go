package bench

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
)

// ReadCSV reads rows in the CUB anchor's columns
// (impl,op,n,keep_ratio,ms_median,gelem_per_s); a header and lines
// starting with # are skipped.
func ReadCSV(path string) ([]Row, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comment = '#'
	r.FieldsPerRecord = 6
	var rows []Row
	for line := 1; ; line++ {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if rec[0] == "impl" {
			continue
		}
		n, err1 := strconv.ParseUint(rec[2], 10, 64)
		keep, err2 := strconv.ParseFloat(rec[3], 64)
		ms, err3 := strconv.ParseFloat(rec[4], 64)
		g, err4 := strconv.ParseFloat(rec[5], 64)
		if err1 != nil || err2 != nil || err3 != nil || err4 != nil || n == 0 || !(g > 0) || math.IsInf(g, 0) {
			return nil, fmt.Errorf("%s: row %q: want impl,op,n,keep_ratio,ms_median,gelem_per_s with n and throughput above 0", path, strings.Join(rec, ","))
		}
		rows = append(rows, Row{Impl: rec[0], Op: rec[1], N: n, KeepRatio: keep, MsMedian: ms, GelemPerS: g})
	}
	return rows, nil
}
