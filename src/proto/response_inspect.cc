// ResponseInspect: Location and Content-Encoding from a response head, its body
// through a BodyDecoder. See response_inspect.h.
#include "proto/response_inspect.h"

#include <algorithm>
#include <cctype>
#include <cstring>

#include "proto/redirect.h"

namespace pacer::proto {

ResponseInspect::ResponseInspect(bool want_location, bool decode)
    : want_location_(want_location),
      decode_(decode) {
  if (want_location_) location_.reserve(256);  // a typical Location; a longer one grows it once
}

void ResponseInspect::begin() {
  if (decode_) decoder_.begin(ContentEncoding::kIdentity);  // a response without a body decodes to nothing
  name_length_ = 0;
  in_value_ = false;
  which_ = Which::kOther;
  location_.clear();
  location_state_ = LocationState::kNone;
  encoding_length_ = 0;
  encoding_headers_ = 0;
  encoding_ = ContentEncoding::kIdentity;
}

void ResponseInspect::name_piece(const char* at, std::size_t len) {
  for (std::size_t i = 0; i < len; ++i) {
    if (name_length_ <= name_.size()) {
      if (name_length_ < name_.size()) {
        name_[name_length_] = static_cast<char>(std::tolower(static_cast<unsigned char>(at[i])));
      }
      ++name_length_;  // one past the buffer: too long to be one of ours
    }
  }
}

void ResponseInspect::classify() {
  const std::string_view name(name_.data(), std::min(name_length_, name_.size()));
  which_ = Which::kOther;
  if (name_length_ > name_.size()) return;
  if (want_location_ && name == "location") {
    which_ = Which::kLocation;
    location_.clear();  // a second Location replaces the first
    location_state_ = LocationState::kSome;
  } else if (decode_ && name == "content-encoding") {
    which_ = Which::kEncoding;
    encoding_length_ = 0;
    ++encoding_headers_;
  }
}

void ResponseInspect::value_piece(const char* at, std::size_t len) {
  if (!in_value_) {
    in_value_ = true;
    classify();
  }
  if (which_ == Which::kLocation && location_state_ != LocationState::kTooLong) {
    if (len > kMaxLocationBytes - location_.size()) {
      location_state_ = LocationState::kTooLong;
      return;
    }
    if (len > 0) location_.append(at, len);
  } else if (which_ == Which::kEncoding) {
    const std::size_t take = std::min(len, encoding_text_.size() - encoding_length_);
    if (take > 0) std::memcpy(encoding_text_.data() + encoding_length_, at, take);
    encoding_length_ += take;
    if (take < len) encoding_headers_ = 2;  // too long to be one coding pacer knows
  }
}

void ResponseInspect::field_done() {
  if (!in_value_) value_piece("", 0);  // an empty value
  name_length_ = 0;
  in_value_ = false;
  which_ = Which::kOther;
}

void ResponseInspect::field(std::string_view name, std::string_view value) {
  name_piece(name.data(), name.size());
  value_piece(value.data(), value.size());
  field_done();
}

void ResponseInspect::head_done() {
  if (!decode_) return;
  // Several codings (two headers, or "gzip, br") are not decoded: a decode error if a body comes.
  encoding_ = encoding_headers_ > 1 ? ContentEncoding::kUnsupported
                                    : parse_content_encoding({encoding_text_.data(), encoding_length_});
  decoder_.begin(encoding_);
}

bool ResponseInspect::body(const char* at, std::size_t len) {
  if (!decode_) return true;
  decoder_.feed(at, len);
  return !decoder_.past_cap();
}

bool ResponseInspect::reads(int status) const { return decode_ || (want_location_ && is_followed_redirect(status)); }

bool ResponseInspect::end_body() { return !decode_ || decoder_.finish(); }

}  // namespace pacer::proto
