// Remote-write 1.0 encoding by hand (protobuf wire format) and snappy; see the header.
#include "prom/remote_write.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include <snappy.h>

#include "prom/exposition.h"

namespace pacer::prom {

namespace {

// Protobuf wire types.
constexpr std::uint32_t kVarint = 0;
constexpr std::uint32_t kFixed64 = 1;
constexpr std::uint32_t kLengthDelimited = 2;

void put_varint(std::string& out, std::uint64_t value) {
  while (value >= 0x80) {
    out += static_cast<char>((value & 0x7F) | 0x80);
    value >>= 7;
  }
  out += static_cast<char>(value);
}

void put_tag(std::string& out, std::uint32_t field, std::uint32_t wire_type) { put_varint(out, (field << 3) | wire_type); }

void put_bytes(std::string& out, std::uint32_t field, std::string_view bytes) {
  put_tag(out, field, kLengthDelimited);
  put_varint(out, bytes.size());
  out.append(bytes);
}

void put_double(std::string& out, std::uint32_t field, double value) {
  put_tag(out, field, kFixed64);
  auto bits = std::bit_cast<std::uint64_t>(value);
  for (int i = 0; i < 8; ++i) {  // little-endian
    out += static_cast<char>(bits & 0xFF);
    bits >>= 8;
  }
}

// One TimeSeries of one sample; `labels` gets __name__ and is sorted here.
void put_series(std::string& out, std::string_view name, Labels labels, double value, std::int64_t timestamp_ms) {
  labels.push_back({"__name__", std::string(name)});
  std::sort(labels.begin(), labels.end(), [](const Label& a, const Label& b) { return a.name < b.name; });
  std::string series;
  for (const Label& label : labels) {
    std::string encoded;
    put_bytes(encoded, 1, label.name);
    put_bytes(encoded, 2, label.value);
    put_bytes(series, 1, encoded);
  }
  std::string sample;
  put_double(sample, 1, value);
  put_tag(sample, 2, kVarint);
  put_varint(sample, static_cast<std::uint64_t>(timestamp_ms));  // int64: two's complement
  put_bytes(series, 2, sample);
  put_bytes(out, 1, series);
}

void put_histogram(std::string& out, const Family& family, const HistogramSample& h, std::int64_t timestamp_ms) {
  const std::string bucket = family.name + "_bucket";
  for (std::size_t i = 0; i < family.bounds_s.size(); ++i) {
    Labels labels = h.labels;  // le as the text formats print it: scraped and pushed series match
    labels.push_back({"le", format_value(family.bounds_s[i])});
    put_series(out, bucket, std::move(labels), static_cast<double>(h.cumulative[i]), timestamp_ms);
  }
  Labels inf = h.labels;
  inf.push_back({"le", "+Inf"});
  put_series(out, bucket, std::move(inf), static_cast<double>(h.count), timestamp_ms);
  put_series(out, family.name + "_sum", h.labels, h.sum, timestamp_ms);
  put_series(out, family.name + "_count", h.labels, static_cast<double>(h.count), timestamp_ms);
}

void put_metadata(std::string& out, const Family& family) {
  std::uint64_t type = 0;
  switch (family.type) {
    case MetricType::kCounter: type = 1; break;
    case MetricType::kGauge: type = 2; break;
    case MetricType::kHistogram: type = 3; break;
  }
  std::string meta;
  put_tag(meta, 1, kVarint);
  put_varint(meta, type);
  put_bytes(meta, 2, family.name);
  put_bytes(meta, 4, family.help);
  if (!family.unit.empty()) put_bytes(meta, 5, family.unit);
  put_bytes(out, 3, meta);
}

}  // namespace

std::string encode_write_request(const std::vector<Family>& families, std::int64_t timestamp_ms) {
  std::string out;
  for (const Family& family : families) {
    if (family.type == MetricType::kHistogram) {
      for (const HistogramSample& h : family.histograms) put_histogram(out, family, h, timestamp_ms);
      continue;
    }
    const std::string name = sample_name(family);
    for (const Sample& s : family.samples) put_series(out, name, s.labels, s.value, timestamp_ms);
  }
  for (const Family& family : families) put_metadata(out, family);
  return out;
}

std::string snappy_compress(std::string_view bytes) {
  std::string out;
  snappy::Compress(bytes.data(), bytes.size(), &out);
  return out;
}

bool snappy_uncompress(std::string_view bytes, std::string& out) {
  return snappy::Uncompress(bytes.data(), bytes.size(), &out);
}

}  // namespace pacer::prom
