//===- PipeSource.td - How the .pipe language spells ops -*- tablegen -*-===//
//
// An op that a .pipe program writes directly lists its spellings here, on
// its ODS record. utils/op-registry/generate.py reads them (through
// llvm-tblgen --dump-json) and writes the tables that the frontend, the
// reference, the runtime's host steps and `pipec --list-functions` use:
// adding a spelling here is all that makes a name known to Sema and MLIRGen.
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_SOURCE_TD
#define PIPE_SOURCE_TD

// What Sema accepts of an elementwise op's operand dtypes, and what it
// converts them to (frontend/SemaChecker.h: Accepts):
//   Numeric        not bool; the promoted dtype
//   FloatResult    integers and bool are converted to f32 first
//   IntegerOrBool  integers or bool
//   Integer        integers
//   Bool           bool only
//   Any            any dtype
class Pipe_Accepts<string r> { string rule = r; }
def AcceptsNumeric : Pipe_Accepts<"Numeric">;
def AcceptsFloatResult : Pipe_Accepts<"FloatResult">;
def AcceptsIntegerOrBool : Pipe_Accepts<"IntegerOrBool">;
def AcceptsInteger : Pipe_Accepts<"Integer">;
def AcceptsBool : Pipe_Accepts<"Bool">;
def AcceptsAny : Pipe_Accepts<"Any">;

// A spelling of an elementwise op: `name(a, b)` or the operator `a + b`,
// with the rule Sema applies to its operands.
class Pipe_Spelling<string name_, Pipe_Accepts accepts_, bit isOperator_> {
  string name = name_;
  string accepts = accepts_.rule;
  bit isOperator = isOperator_;
}
class Pipe_FunctionSpelling<string name, Pipe_Accepts accepts>
    : Pipe_Spelling<name, accepts, 0>;
class Pipe_OperatorSpelling<string name, Pipe_Accepts accepts>
    : Pipe_Spelling<name, accepts, 1>;

// A function of the language that builds a structured (non-elementwise)
// op: its name, the most positional arguments it takes and its keyword
// arguments. Sema checks the arity and the keywords from this, then calls
// PipelineChecker::check<Op>; MLIRGen calls Generator::emit<Op>.
class Pipe_Function<string name_, int positional_, list<string> keywords_> {
  string name = name_;
  int positional = positional_;
  list<string> keywords = keywords_;
}

#endif // PIPE_SOURCE_TD
