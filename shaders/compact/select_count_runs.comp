#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
// select_count_runs: select_count.glsl with the neighbour predicates (unique,
// run edges: compact.FirstOfRun, RunEdges).
#define NEIGHBOUR_PREDS 1
#include "select_count.glsl"
