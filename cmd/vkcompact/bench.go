package main

import (
	"encoding/json"
	"io"
	"time"

	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/bench"
	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/fileio"
	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/usage"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// benchJob is a checked invocation of bench: the measurements
// (internal/bench), and what becomes of their rows.
type benchJob struct {
	cfg         *bench.Config
	device      string
	timeout     time.Duration // -timeout
	asJSON      bool
	plot        string      // -plot: the file to draw
	extra       []bench.Row // -plot-with: rows drawn beside the measured ones
	plotOnly    bool
	kernelStats string // -kernel-stats: the CSV to write
}

// parseBench parses and checks bench's flags: the measurements' and the
// verb's own (-device, -json, -plot, -plot-with, -plot-only,
// -kernel-stats).
func parseBench(args []string, stderr io.Writer) (*benchJob, error) {
	fs := newFlags("bench", stderr)
	measurements := bench.DefineFlags(fs.FlagSet)
	device := fs.String("device", "", deviceHelp)
	asJSON := fs.Bool("json", false, "print JSON instead of CSV")
	plot := fs.String("plot", "", "also draw the rows as a plot, throughput against n, to `FILE` (.svg or .png)")
	plotWith := fs.String("plot-with", "", "draw the rows of this CSV (the CUB anchor's columns) beside the measured ones")
	plotOnly := fs.Bool("plot-only", false, "measure nothing: draw the -plot-with rows of the -ops operations")
	kernelStats := fs.String("kernel-stats", "", "after measuring, write the driver's statistics of every kernel the run compiled (registers, shared memory, ...; VK_KHR_pipeline_executable_properties) to `FILE` as CSV")
	if err := parse(fs, args); err != nil {
		return nil, err
	}
	j := &benchJob{device: *device, timeout: fs.timeout, asJSON: *asJSON, plot: *plot, plotOnly: *plotOnly, kernelStats: *kernelStats}
	var err error
	if j.cfg, err = measurements.Config(); err != nil {
		return nil, err
	}
	if j.plot != "" {
		if err := bench.CheckPlotPath(j.plot); err != nil {
			return nil, usage.Error{Err: err}
		}
	}
	if *plotWith != "" {
		if j.extra, err = bench.ReadCSV(*plotWith); err != nil {
			return nil, usage.Errorf("-plot-with: %v", err)
		}
	}
	if j.plotOnly && (j.plot == "" || *plotWith == "") {
		return nil, usage.Errorf("-plot-only needs -plot FILE and -plot-with CSV")
	}
	return j, nil
}

// runBench runs `vkcompact bench`: each operation of -ops at each size of
// -n (and keep ratio of -keep), checked against a Go reference, as CSV
// rows (or JSON), with the plot and the kernel statistics asked for.
func runBench(args []string, stdout, stderr io.Writer) (err error) {
	j, err := parseBench(args, stderr)
	if err != nil {
		return err
	}
	if j.plotOnly {
		if err := bench.WritePlot(j.plot, j.extra, j.cfg.Ops()); err != nil {
			return usage.Error{Err: err}
		}
		return nil
	}
	var statsOut *fileio.Output
	if j.kernelStats != "" {
		// Created first, so that a path that cannot be written fails before the run.
		if statsOut, err = fileio.CreateOutput("-kernel-stats", j.kernelStats); err != nil {
			return err
		}
		defer statsOut.AbortOnError(&err)
	}
	prog := startProgress(stderr, j.asJSON, "bench")
	defer prog.end()
	_, err = onDevice(vk.Options{Device: j.device, Timeout: j.timeout, Statistics: j.kernelStats != ""}, prog.Writer(stderr), func(ctx *vk.Context, _ *allocator) error {
		return j.measure(ctx, prog.Writer(stdout), prog.Writer(stderr), statsOut, prog)
	})
	return err
}

// measure times and checks every operation at every size on ctx, prints
// the rows, and writes the plot and the kernel statistics to statsOut. It
// counts the measurements done on prog.
func (j *benchJob) measure(ctx *vk.Context, stdout, stderr io.Writer, statsOut *fileio.Output, prog *progress) error {
	if statsOut != nil && !ctx.Info().PipelineStatistics {
		return usage.Errorf("-kernel-stats: %s lacks VK_KHR_pipeline_executable_properties", ctx.Info().Name)
	}
	if err := j.cfg.Check(ctx); err != nil {
		return usage.Error{Err: err}
	}
	csv := stdout
	if j.asJSON {
		csv = nil
	}
	rows, err := j.cfg.Measure(ctx, csv, stderr, func(done, total int) { prog.set(done, total, "measurements") })
	if err != nil {
		return err
	}
	if j.plot != "" {
		if err := bench.WritePlot(j.plot, append(rows, j.extra...), j.cfg.Ops()); err != nil {
			return err
		}
	}
	if statsOut != nil {
		data, err := bench.KernelStatsCSV(pipeline.For(ctx).Pipelines())
		if err != nil {
			return err
		}
		if err := statsOut.Commit(nil, data); err != nil {
			return err
		}
	}
	if j.asJSON {
		return json.NewEncoder(stdout).Encode(rows)
	}
	return nil
}
