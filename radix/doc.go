// Package radix will hold a stable LSD radix sort built on the same three
// phases as package compact: per-processor digit histograms, one scan over
// them, a stable scatter. It is empty until that work lands.
package radix
