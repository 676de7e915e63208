// The lab link on the wire: one pcap file of one device's packets, headers
// only, for `fabriclab run --capture` (one per scenario, recordings/FORMAT.md
// "capture"). libpcap opens the device -- inside a lab namespace when
// netns_fd >= 0 (the capture socket stays bound to the namespace it was
// opened in) -- and a thread of its own writes every packet it sees with
// pcap_dump, until stop() or the size cap. Read the file with tshark or
// tcpdump -r.
//
// Why headers only: what a student reads on the wire is sequence numbers,
// retransmissions, NAKs and PSNs, not the gradient's bytes; 128 bytes hold
// Ethernet + IPv4 + TCP with options, or + UDP + RoCE's BTH, RETH and AETH.
// Why a cap: a full lab moves gigabytes; the cap keeps a run's directory a
// size a person can keep (the first packets are kept, later ones counted).
//
// Lifetime: the thread runs from start() to stop() (or the destructor).
// Thread safety: one owner. Errors: std::runtime_error from start() naming
// the device and libpcap's reason (no such device, no permission).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

namespace fabriclab::runner {

struct CaptureSpec {
  std::string path;        // the pcap file to write
  std::string device;      // "eth0" in a rank's namespace, or --iface
  int netns_fd = -1;       // -1: the runner's own namespace (host mode)
  std::string netns_label; // for run.json and messages ("fl-3fa2c1-r1")
  std::string filter;      // a BPF expression ("host A or host B"); "" = every packet
  int snaplen = 128;       // bytes kept of each packet
  uint64_t max_bytes = 64ull << 20;  // the file stops growing here
};

// What a finished capture holds, for run.json's scenario `capture`.
struct CaptureSummary {
  uint64_t packets = 0;        // written to the file
  uint64_t not_written = 0;    // seen after the cap was reached
  uint64_t kernel_dropped = 0; // libpcap's ps_drop: the buffer overflowed
  bool truncated = false;      // the cap was reached
};

class LinkCapture {
 public:
  // Opens the device and the file and starts the writer thread.
  static std::unique_ptr<LinkCapture> start(const CaptureSpec& spec);
  ~LinkCapture();
  LinkCapture(const LinkCapture&) = delete;
  LinkCapture& operator=(const LinkCapture&) = delete;

  // Stops the thread, flushes and closes the file. Idempotent.
  CaptureSummary stop();
  const CaptureSpec& spec() const { return spec_; }

  // run.json's `capture` for this file, `file` relative to the run directory.
  nlohmann::json to_json(const std::string& file, const CaptureSummary& summary) const;

 private:
  explicit LinkCapture(CaptureSpec spec);
  void loop();

  CaptureSpec spec_;
  struct Handles;
  std::unique_ptr<Handles> h_;
  std::thread thread_;
  std::atomic<bool> stopping_{false};
  CaptureSummary summary_;
  uint64_t bytes_ = 0;
  bool stopped_ = false;
};

}  // namespace fabriclab::runner
