#include "common/json_stream.h"

#include <gtest/gtest.h>

#include <fstream>
#include <vector>

#include "support/temp_dir.h"

namespace canopy {
namespace {

// Short words, so that an error shows which of them the scanner chose.
const JsonStreamWords kWords{"X", " (other)", "P", "C", "E", "T"};

struct Piece {
  std::string text;
  int64_t index;
  int64_t line;
  int64_t column;
  bool complete;
  bool operator==(const Piece&) const = default;
};

std::ostream& operator<<(std::ostream& out, const Piece& p) {
  return out << "[" << p.index << "] " << p.line << ":" << p.column << (p.complete ? " " : " (cut) ") << p.text;
}

struct Scan {
  std::vector<Piece> pieces;
  std::string error;  // after "FILE:", empty when the scan succeeded
  std::vector<int64_t> progress;
};

class JsonStream : public ::testing::Test {
 protected:
  Scan scan(const std::string& content, JsonContainer container, size_t chunk_bytes = 1 << 20,
            size_t max_piece_bytes = 1 << 20, const JsonPieceVisitor& also = nullptr) {
    std::string path = dir_.file("in.json");
    std::ofstream(path, std::ios::binary | std::ios::trunc) << content;
    Scan result;
    JsonStreamFile file{path, container, max_piece_bytes, kWords, nullptr, chunk_bytes};
    file.progress = [&](int64_t done, int64_t total) {
      EXPECT_EQ(total, static_cast<int64_t>(content.size()));
      result.progress.push_back(done);
    };
    auto status = for_each_json_piece(file, [&](const JsonPiece& piece) -> Status {
      result.pieces.push_back(
          {std::string(piece.text), piece.index, piece.start.line, piece.start.column, piece.complete});
      return also ? also(piece) : Status(Ok{});
    });
    if (!status) {
      // The scan's own faults name the file; the visitor's errors are its own.
      result.error = status.error().message;
      if (result.error.starts_with(path + ":")) {
        result.error.erase(0, path.size() + 1);
      }
    }
    return result;
  }

  testing::TempDir dir_;
};

TEST_F(JsonStream, ElementsAreCutTheSameWhereverTheChunksEnd) {
  // Strings holding commas, brackets, escaped quotes and an escaped backslash before
  // their closing quote; nesting of both kinds; spaces and newlines between elements.
  const std::string content =
      "[{\"a\": [1, 2], \"b\": {\"c\": \"]}\"}},\n"
      " \"x,]y\\\"[\" ,\"\\\\\",  -3.5e2 ,[[], {}]\n"
      ",true, null]\n";
  const std::vector<Piece> expected = {
      {"{\"a\": [1, 2], \"b\": {\"c\": \"]}\"}}", 0, 1, 2, true},
      {"\"x,]y\\\"[\"", 1, 2, 2, true},
      {"\"\\\\\"", 2, 2, 13, true},
      {"-3.5e2", 3, 2, 20, true},
      {"[[], {}]", 4, 2, 28, true},
      {"true", 5, 3, 2, true},
      {"null", 6, 3, 8, true},
  };
  for (size_t chunk_bytes : {size_t{1}, size_t{2}, size_t{3}, size_t{5}, size_t{7}, size_t{16}, size_t{1} << 20}) {
    SCOPED_TRACE("chunks of " + std::to_string(chunk_bytes) + " bytes");
    Scan result = scan(content, JsonContainer::kArray, chunk_bytes);
    EXPECT_EQ(result.error, "");
    EXPECT_EQ(result.pieces, expected);
    ASSERT_FALSE(result.progress.empty());
    EXPECT_EQ(result.progress.back(), static_cast<int64_t>(content.size()));
    EXPECT_EQ(result.progress.size(), (content.size() + chunk_bytes - 1) / chunk_bytes);
  }
}

TEST_F(JsonStream, MembersEndOnlyAtACommaOrTheObjectsEnd) {
  // A member holds spaces between its key, colon and value, and keeps those after it.
  const std::string content = "{\"1\" : [\"a}\", \"b\\\"\"] ,\n  \"2\":{\"x\":[]}}";
  for (size_t chunk_bytes : {size_t{1}, size_t{4}, size_t{1} << 20}) {
    SCOPED_TRACE("chunks of " + std::to_string(chunk_bytes) + " bytes");
    Scan result = scan(content, JsonContainer::kObject, chunk_bytes);
    EXPECT_EQ(result.error, "");
    EXPECT_EQ(result.pieces, (std::vector<Piece>{{"\"1\" : [\"a}\", \"b\\\"\"] ", 0, 1, 2, true},
                                                 {"\"2\":{\"x\":[]}", 1, 2, 3, true}}));
  }
}

TEST_F(JsonStream, TheNthPieceStartsWhereTheFileSays) {
  // 1,000 elements, four a line, each at a column its number tells.
  std::string content = "[";
  for (int i = 0; i < 1000; ++i) {
    content += (i % 4 == 0 && i > 0) ? "\n" : "";
    content += "{\"n\": " + std::to_string(1000 + i) + "}" + (i < 999 ? "," : "]");
  }
  Scan result = scan(content, JsonContainer::kArray, 64);
  ASSERT_EQ(result.error, "");
  ASSERT_EQ(result.pieces.size(), 1000u);
  // Each element is 12 bytes with its comma; line 1 starts with '['.
  EXPECT_EQ(result.pieces[0], (Piece{"{\"n\": 1000}", 0, 1, 2, true}));
  EXPECT_EQ(result.pieces[3], (Piece{"{\"n\": 1003}", 3, 1, 38, true}));
  EXPECT_EQ(result.pieces[4], (Piece{"{\"n\": 1004}", 4, 2, 1, true}));
  EXPECT_EQ(result.pieces[998], (Piece{"{\"n\": 1998}", 998, 250, 25, true}));
  EXPECT_EQ(result.pieces[999], (Piece{"{\"n\": 1999}", 999, 250, 37, true}));
}

TEST_F(JsonStream, AByteOrderMarkIsSkipped) {
  Scan result = scan("\xEF\xBB\xBF[7]", JsonContainer::kArray, 2);
  EXPECT_EQ(result.error, "");
  EXPECT_EQ(result.pieces, (std::vector<Piece>{{"7", 0, 1, 2, true}}));
  EXPECT_EQ(scan("\xEF\xBB\xBF{}", JsonContainer::kObject).error, "");
  EXPECT_EQ(scan("\xEF\xBB\xBF", JsonContainer::kArray).error, "1:1: expected X, found only spaces");
}

TEST_F(JsonStream, ACutFileHandsOverItsLastPieceUnfinished) {
  for (size_t chunk_bytes : {size_t{3}, size_t{1} << 20}) {
    SCOPED_TRACE("chunks of " + std::to_string(chunk_bytes) + " bytes");
    // The visitor finds nothing wrong with the cut piece: the container is not closed.
    Scan result = scan("[1,\n {\"a\": \"b", JsonContainer::kArray, chunk_bytes);
    EXPECT_EQ(result.pieces, (std::vector<Piece>{{"1", 0, 1, 2, true}, {"{\"a\": \"b", 1, 2, 2, false}}));
    EXPECT_EQ(result.error, "2:10: unexpected end of input: C is not closed");
    // The visitor's own error, about the cut piece, is the scan's.
    result = scan("{\"1\": [\"a\"], \"2\": [\"b", JsonContainer::kObject, chunk_bytes, 1 << 20,
                  [](const JsonPiece& piece) -> Status {
                    return piece.complete ? Status(Ok{}) : Error{"cut at " + std::to_string(piece.text.size())};
                  });
    EXPECT_EQ(result.error, "cut at 8");
  }
}

TEST_F(JsonStream, FaultsAroundThePiecesNameTheirPlace) {
  struct Case {
    std::string content;
    JsonContainer container;
    std::string error;
  };
  const Case cases[] = {
      // Cut between pieces.
      {"[1, 2,\n  ", JsonContainer::kArray, "2:3: unexpected end of input: C is not closed"},
      {"[1 ", JsonContainer::kArray, "1:4: unexpected end of input: C is not closed"},
      {"{", JsonContainer::kObject, "1:2: unexpected end of input: C is not closed"},
      // Not the container, named by its first byte.
      {"\n  {\"a\": 1}", JsonContainer::kArray, "2:3: expected X, found '{' (other)"},
      {"[1]", JsonContainer::kObject, "1:1: expected X, found '[' (other)"},
      {"\x89PNG", JsonContainer::kArray, "1:1: expected X, found byte 0x89"},
      {"", JsonContainer::kArray, "1:1: expected X, found an empty file"},
      {" \n\t\n", JsonContainer::kObject, "3:1: expected X, found only spaces"},
      // Misplaced commas and brackets.
      {"[,1]", JsonContainer::kArray, "1:2: expected P, found ','"},
      {"[1,,2]", JsonContainer::kArray, "1:4: expected P after ',', found ','"},
      {"[1,\n]", JsonContainer::kArray, "2:1: expected P after ',', found ']'"},
      {"{\"1\": [],}", JsonContainer::kObject, "1:10: expected P after ',', found '}'"},
      {"{,\"1\": []}", JsonContainer::kObject, "1:2: expected P, found ','"},
      {"[1 2]", JsonContainer::kArray, "1:4: expected ',' or ']' after P, found '2'"},
      {"[] \nx", JsonContainer::kArray, "2:1: unexpected 'x' after E"},
      {"{}}", JsonContainer::kObject, "1:3: unexpected '}' after E"},
  };
  for (const Case& c : cases) {
    for (size_t chunk_bytes : {size_t{1}, size_t{1} << 20}) {
      EXPECT_EQ(scan(c.content, c.container, chunk_bytes).error, c.error) << c.content << ", chunks of " << chunk_bytes;
    }
  }
}

TEST_F(JsonStream, ClosersOfTheOtherKindStayInThePiece) {
  // They end nothing: the piece's parser will say what is wrong with them.
  Scan result = scan("[1}, 2]", JsonContainer::kArray);
  EXPECT_EQ(result.error, "");
  EXPECT_EQ(result.pieces, (std::vector<Piece>{{"1}", 0, 1, 2, true}, {"2", 1, 1, 6, true}}));
  EXPECT_EQ(scan("[]", JsonContainer::kArray).pieces.size(), 0u);
}

TEST_F(JsonStream, APieceLongerThanTheMostIsRefusedAtItsStart) {
  for (size_t chunk_bytes : {size_t{4}, size_t{1} << 20}) {
    SCOPED_TRACE("chunks of " + std::to_string(chunk_bytes) + " bytes");
    Scan result = scan("[12345678,\n 123456789, 1]", JsonContainer::kArray, chunk_bytes, 8);
    EXPECT_EQ(result.error, "2:2: T");
    EXPECT_EQ(result.pieces, (std::vector<Piece>{{"12345678", 0, 1, 2, true}})) << "8 bytes are allowed";
    // Cut off while already too long: the length is the fault, not the cut.
    EXPECT_EQ(scan("[\"123456789", JsonContainer::kArray, chunk_bytes, 8).error, "1:2: T");
  }
}

TEST_F(JsonStream, TheVisitorsErrorStopsTheScan) {
  Scan result = scan("[1, 2, 3]", JsonContainer::kArray, 1 << 20, 1 << 20, [](const JsonPiece& piece) -> Status {
    return piece.index == 1 ? Status(Error{"no 2"}) : Status(Ok{});
  });
  EXPECT_EQ(result.pieces.size(), 2u);
  EXPECT_EQ(result.error, "no 2");
}

TEST_F(JsonStream, OnlyARegularFileIsRead) {
  JsonStreamFile file;
  file.path = dir_.path();
  file.max_piece_bytes = 100;
  file.words = kWords;
  auto status = for_each_json_piece(file, [](const JsonPiece&) -> Status { return Ok{}; });
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().message, "cannot read '" + dir_.path() + "': not a regular file");
  file.path = dir_.file("missing.json");
  status = for_each_json_piece(file, [](const JsonPiece&) -> Status { return Ok{}; });
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().message, "cannot read '" + file.path + "': No such file or directory");
}

}  // namespace
}  // namespace canopy
