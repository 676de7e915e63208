// How long one gradient sync takes at a given line rate: the arithmetic of
// the curriculum's "inversion" (700 GB over one 400 Gb/s NIC: 14 s), shared by
// lab 03's scale-up table (runner/report/scale_up_table.h) and the grader's
// `sync_s@...` values (labs/SCHEMA.md), so both give the same number.
//
//   bytes per rank = params x wire bytes per fp32 parameter x (bf16 ? 1/2 : 1)
//   seconds        = bytes x 8 / (nics x gbps x 1e9)
//
// `wire_bytes_per_param` is what one fp32 parameter put on the wire per step
// in the student's run (result.wire_bytes_per_param: the ring's 2(N-1)/N x 4
// bytes plus the protocol's overhead); 4 gives the curriculum's plain S / rate.
#pragma once

#include <string>

namespace fabriclab {

inline double bytes_per_value_ratio(const std::string& dtype) {
  return dtype == "bf16" ? 0.5 : 1.0;  // fp32 is what the trainer sends
}

inline double sync_seconds(double params, double wire_bytes_per_param, const std::string& dtype,
                           double gbps, int nics) {
  const double bytes = params * wire_bytes_per_param * bytes_per_value_ratio(dtype);
  return bytes * 8 / (nics * gbps * 1e9);
}

}  // namespace fabriclab
