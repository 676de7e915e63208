#include "runner/capture/link_capture.h"

#include <pcap/pcap.h>
#include <poll.h>
#include <spdlog/spdlog.h>

#include <stdexcept>

#include "common/scoped_netns.h"

namespace fabriclab::runner {

struct LinkCapture::Handles {
  pcap_t* pcap = nullptr;
  pcap_dumper_t* dumper = nullptr;
  ~Handles() {
    if (dumper) pcap_dump_close(dumper);
    if (pcap) pcap_close(pcap);
  }
};

namespace {

// A pcap record is its 16-byte header and the bytes kept.
constexpr uint64_t kRecordHeaderBytes = 16;
// How often the writer looks at stopping_ when the link is quiet.
constexpr int kPollMs = 100;

std::runtime_error capture_error(const CaptureSpec& spec, const std::string& what) {
  return std::runtime_error("capture on " +
                            (spec.netns_label.empty() ? "" : spec.netns_label + "/") +
                            spec.device + ": " + what);
}

}  // namespace

LinkCapture::LinkCapture(CaptureSpec spec) : spec_(std::move(spec)) {}

std::unique_ptr<LinkCapture> LinkCapture::start(const CaptureSpec& spec) {
  std::unique_ptr<LinkCapture> capture(new LinkCapture(spec));
  auto h = std::make_unique<Handles>();
  char errbuf[PCAP_ERRBUF_SIZE] = {};
  {
    // The packet socket is made by pcap_activate, in this thread's namespace.
    ScopedNetns in_lab(spec.netns_fd);
    h->pcap = pcap_create(spec.device.c_str(), errbuf);
    if (!h->pcap) throw capture_error(spec, errbuf);
    pcap_set_snaplen(h->pcap, spec.snaplen);
    pcap_set_promisc(h->pcap, 0);
    pcap_set_timeout(h->pcap, kPollMs);
    pcap_set_immediate_mode(h->pcap, 1);
    pcap_set_buffer_size(h->pcap, 8 << 20);
    const int status = pcap_activate(h->pcap);
    if (status < 0) throw capture_error(spec, pcap_geterr(h->pcap));
  }
  if (!spec.filter.empty()) {
    bpf_program program{};
    if (pcap_compile(h->pcap, &program, spec.filter.c_str(), 1, PCAP_NETMASK_UNKNOWN) != 0)
      throw capture_error(spec, "filter \"" + spec.filter + "\": " + pcap_geterr(h->pcap));
    const int set = pcap_setfilter(h->pcap, &program);
    pcap_freecode(&program);
    if (set != 0) throw capture_error(spec, pcap_geterr(h->pcap));
  }
  if (pcap_setnonblock(h->pcap, 1, errbuf) != 0) throw capture_error(spec, errbuf);
  h->dumper = pcap_dump_open(h->pcap, spec.path.c_str());
  if (!h->dumper) throw capture_error(spec, spec.path + ": " + pcap_geterr(h->pcap));
  capture->bytes_ = 24;  // the file header
  capture->h_ = std::move(h);
  capture->thread_ = std::thread([c = capture.get()] { c->loop(); });
  return capture;
}

void LinkCapture::loop() {
  const int fd = pcap_get_selectable_fd(h_->pcap);
  auto write_one = [](u_char* user, const pcap_pkthdr* header, const u_char* bytes) {
    auto* self = reinterpret_cast<LinkCapture*>(user);
    const uint64_t record = kRecordHeaderBytes + header->caplen;
    if (self->bytes_ + record > self->spec_.max_bytes) {
      self->summary_.truncated = true;
      ++self->summary_.not_written;
      return;
    }
    pcap_dump(reinterpret_cast<u_char*>(self->h_->dumper), header, bytes);
    self->bytes_ += record;
    ++self->summary_.packets;
  };
  while (!stopping_.load()) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, kPollMs) < 0 && errno != EINTR) break;
    if (pcap_dispatch(h_->pcap, -1, write_one, reinterpret_cast<u_char*>(this)) < 0) {
      spdlog::warn("capture on {}: {}", spec_.device, pcap_geterr(h_->pcap));
      break;
    }
  }
  // What is still in the ring buffer when the scenario ended.
  pcap_dispatch(h_->pcap, -1, write_one, reinterpret_cast<u_char*>(this));
}

CaptureSummary LinkCapture::stop() {
  if (stopped_) return summary_;
  stopped_ = true;
  stopping_ = true;
  if (thread_.joinable()) thread_.join();
  pcap_stat stats{};
  if (pcap_stats(h_->pcap, &stats) == 0) summary_.kernel_dropped = stats.ps_drop;
  h_.reset();  // closes the file: every record is on disk
  return summary_;
}

LinkCapture::~LinkCapture() { stop(); }

nlohmann::json LinkCapture::to_json(const std::string& file, const CaptureSummary& summary) const {
  nlohmann::json out = {{"file", file},
                        {"device", spec_.device},
                        {"snaplen", spec_.snaplen},
                        {"max_bytes", spec_.max_bytes},
                        {"packets", summary.packets},
                        {"not_written", summary.not_written},
                        {"kernel_dropped", summary.kernel_dropped},
                        {"truncated", summary.truncated}};
  if (!spec_.netns_label.empty()) out["netns"] = spec_.netns_label;
  if (!spec_.filter.empty()) out["filter"] = spec_.filter;
  return out;
}

}  // namespace fabriclab::runner
