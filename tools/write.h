/* oz0fs --write [--tree DIR] [--audit FILE] [--config FILE] [--] PATH
 * Writes standard input to PATH for an ACP agent (seed 000, "ACP file
 * writes" and "Audit file writes before applying them"; seed 004, layer B),
 * as a harness serving fs/write_text_file would, outside the sandbox:
 *  - the whole input first, at most WRITE_MAX_SIZE bytes, so that the model
 *    is read after it, just before the write;
 *  - the model of the tree built afresh (a model that cannot be built, a
 *    repository whose Git files cannot be read whole, refuses every write);
 *  - what --check-path --write refuses (the denied roots, the model by
 *    every spelling of PATH), then the walk (tools/write-walk.h) and the
 *    judgement by identity (tools/write-judge.h);
 *  - the bytes in a new file in the held folder, the walk and judgement
 *    done again, then a run.file_write line in the audit log (which must
 *    take it whole, on the disk), and only then the file's name
 *    (tools/write-put.h).
 * A refusal is one audit line and one line on stderr with the rule.
 * Exit 0 written, 1 refused, 2 usage (or a configuration that cannot be
 * read). ARGC/ARGV start at the word "--write". */
#pragma once

/* The most --write takes: an agent's text file, with room to spare; past
 * it the write is refused (standard input might never end). */
#define WRITE_MAX_SIZE (64u << 20)

int write_main(int argc, char **argv);
