// onepass_runs.glsl: the values and run lengths of select_onepass.glsl's
// neighbour modules (select_onepass_runs.comp,
// select_onepass_reset_runs.comp), which include it: each subgroup's
// write-out of its run of kept elements, after the elements.
//
// VALUE_WORDS (compact.Selection.Values; the neighbour modules alone):
// each kept element's value, VALUE_WORDS words at its index in values[]
// (binding 9), goes to the same slot of valuesOut[] (binding 10), in the
// same pass: unique by key. The tile then stages its kept elements'
// indices, and each subgroup writes its run of kept elements and their
// values re-read at them (the elements were loaded just now: a cache
// hit; the values are read once, each line by the tile that keeps from
// it).
//
// OUT_INDEX 3 (run lengths, internal/keepop.RunLengths: package runs'
// Encode; the neighbour modules alone, with FirstOfRun): each kept
// element, a run's first, gets its run's length in dstWord[] and itself
// in dstElems[]. The tile stages its kept elements' indices; the scan of
// the segments' counts also finds, for each segment, the last kept index
// of the tile before it (sgPrev); then each kept element writes the
// length of the run before it, its index less the previous kept one's,
// and the tile's last kept element writes its own index in its own slot.
// The tile's first kept element has no earlier one in the tile: it writes
// its slot (the tile's exclusive prefix) and its index to the tile's
// record in runRecords[] (binding 11), which select_lengths.comp, a
// dispatch over the tiles after this one, turns into the length of the
// run before it (the last run of an earlier tile); it also ends the last
// run of all at the elements covered. A tile that keeps nothing records
// no index.

// writeRunLengths writes the lengths (OUT_INDEX 3) of the calling
// subgroup's run of kept elements: kept of them from slot prefix +
// before, tile rank before, of the tile's aggregate; prev1 is 1 + the
// tile's last kept index before the run (0: none); stageAt, e1, e2, e3
// and seg locate their indices in the stage (runStage). Element q ends
// the run before it.
void writeRunLengths(uint tile, uint prefix, uint before, uint kept, uint aggregate, uint prev1,
                     uint stageAt, uint e1, uint e2, uint e3, uint seg) {
    for (uint q = gl_SubgroupInvocationID; q < kept; q += gl_SubgroupSize) {
        uint idx = stage[stageAt + runStage(q, e1, e2, e3, seg)];
        uint p1 = q > 0 ? stage[stageAt + runStage(q - 1, e1, e2, e3, seg)] + 1 : prev1;
        uint slot = prefix + before + q;
        if (p1 != 0) {
            dstWord[slot - 1] = idx - (p1 - 1);
        } else { // the tile's first kept element
            runRecords[2 * tile] = slot;
            runRecords[2 * tile + 1] = idx + 1;
        }
        if (before + q + 1 == aggregate) {
            dstWord[slot] = idx; // the tile's last run: its start, which select_lengths turns into its length
        }
    }
    if (gl_LocalInvocationID.x == 0 && aggregate == 0) {
        runRecords[2 * tile] = prefix;
        runRecords[2 * tile + 1] = 0; // no run starts in the tile
    }
}

// writeValues writes the values (VALUE_WORDS) of the calling subgroup's
// run of kept elements, kept of them from slot at, each read at its
// index (located as writeRunLengths's).
void writeValues(uint at, uint kept, uint stageAt, uint e1, uint e2, uint e3, uint seg) {
    for (uint t = gl_SubgroupInvocationID; t < kept * VWORDS; t += gl_SubgroupSize) {
        uint q = t / VWORDS;
        uint w = t - q * VWORDS;
        valuesOut[(at + q) * VWORDS + w] = values[stage[stageAt + runStage(q, e1, e2, e3, seg)] * VWORDS + w];
    }
}
