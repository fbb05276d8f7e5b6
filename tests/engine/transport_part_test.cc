// The transport on its own (plain TCP): a fake engine's reads fed to a fake
// session within the read budget, the session's output written, and what goes
// wrong reported to recording LinkEvents; every byte handed to the wire tap.
// No socket, no thread, no exchange: the transport needs none.
#include "engine/conn/transport.h"

#include <gtest/gtest.h>

#include "engine/record/request_log.h"
#include "part_fakes.h"

namespace pacer::engine {
namespace {

using testing::FakeSession;
using testing::RecordingLinks;

// One open connection over a fake session, its reports recorded.
struct TransportParts : testing::TransportRig {
  RecordingLinks links;
  Connection c{nullptr, 1};

  TransportParts() {
    prepare_transport(links);
    c.session = std::make_unique<FakeSession>();
    c.state = Connection::State::kOpen;
    budget.begin(clock.now);
  }
  FakeSession& session() { return static_cast<FakeSession&>(*c.session); }
};

TEST(TransportPart, ReadsGoToTheSessionInOrderAndAreCounted) {
  TransportParts p;
  p.engine.incoming = {"HTTP/1.1 200 OK\r\n", "\r\n"};
  EXPECT_TRUE(p.transport.read(p.c, io::kReadable));
  EXPECT_EQ(p.session().received, "HTTP/1.1 200 OK\r\n\r\n");
  EXPECT_EQ(p.recorder.result().counters.bytes_read, 19u);
  EXPECT_EQ(p.links.broken + p.links.peer_closes, 0);
}

TEST(TransportPart, ThePeersCloseIsReportedAfterTheBytesBeforeIt) {
  TransportParts p;
  p.engine.incoming = {"tail"};
  p.engine.peer_closes = true;
  EXPECT_FALSE(p.transport.read(p.c, io::kReadable | io::kPeerClosing));
  EXPECT_EQ(p.session().received, "tail");  // a close-delimited body gets its last bytes first
  EXPECT_EQ(p.links.peer_closes, 1);
  EXPECT_EQ(p.links.broken, 0);
}

TEST(TransportPart, BytesTheSessionCannotParseBreakTheConnectionAsAParseError) {
  TransportParts p;
  p.session().parse_ok = false;
  p.engine.incoming = {"garbage"};
  EXPECT_FALSE(p.transport.read(p.c, io::kReadable));
  EXPECT_EQ(p.links.broken, 1);
  EXPECT_EQ(p.links.last_error, &stats::ErrorCounts::parse);
}

TEST(TransportPart, AFlushWritesThePendingOutputAndTheSessionLetsItGo) {
  TransportParts p;
  p.session().output = "GET / HTTP/1.1\r\n\r\n";
  EXPECT_TRUE(p.transport.flush(p.c));
  EXPECT_EQ(p.engine.written, "GET / HTTP/1.1\r\n\r\n");
  EXPECT_TRUE(p.session().output.empty());
  EXPECT_FALSE(p.c.write_blocked);
  EXPECT_EQ(p.recorder.result().counters.bytes_written, 18u);
}

TEST(TransportPart, AWriteThatWouldBlockWaitsForTheEnginesWritableEvent) {
  TransportParts p;
  p.session().output = "GET /";
  p.engine.write_status = net::IoStatus::kWantWrite;
  EXPECT_TRUE(p.transport.flush(p.c));
  EXPECT_TRUE(p.c.write_blocked);
  EXPECT_EQ(p.session().output, "GET /");  // kept for the next flush
  p.engine.write_status = net::IoStatus::kOk;
  EXPECT_TRUE(p.transport.flush(p.c));
  EXPECT_FALSE(p.c.write_blocked);
  EXPECT_EQ(p.engine.written, "GET /");
}

TEST(TransportPart, AFailedWriteIsReportedAsAWriteError) {
  TransportParts p;
  p.session().output = "GET /";
  p.engine.write_status = net::IoStatus::kError;
  EXPECT_FALSE(p.transport.flush(p.c));
  EXPECT_EQ(p.links.broken, 1);
  EXPECT_EQ(p.links.last_error, &stats::ErrorCounts::write);
}

}  // namespace
}  // namespace pacer::engine
