// hrace-pass: loop-range hoisting of ThreadSanitizer's access callbacks (docs/access.md,
// "Loop hoisting"), and checks for the loads and stores TSan leaves uninstrumented (accesses
// of other sizes than 1-16 bytes, masked vector loads and stores: wideAccesses). Loaded by
// hrace-cc with clang 14 (-fpass-plugin=<lib>/libhrace-pass.so); HRACE_CC_HOIST=0 in the
// environment turns the hoisting off, not the checks.
//
// It runs AFTER ThreadSanitizer's instrumentation pass and works on the calls TSan emitted
// (__tsan_readN / __tsan_writeN / __tsan_unaligned_*), so every decision TSan makes (which
// accesses it instruments at all, the read of `*p = *p + 1`, atomics, volatiles) stays TSan's.
// LLVM 14's TSan ignores !nosanitize, so running before it could not keep it from
// instrumenting an access; running after it can simply replace its calls.
//
// Placement: clang 14 loads the plugin before it registers the sanitizer passes at the
// OptimizerLast extension point, so a callback the plugin registered there directly would run
// BEFORE TSan. The plugin therefore registers its OptimizerLast callback from the PipelineStart
// callback, which clang invokes while it builds the pipeline, after the sanitizers registered
// theirs: it is appended behind TSan's. The loop vectoriser runs earlier in the optimisation
// pipeline, on uninstrumented IR, so the loops this pass sees are already vectorised; once
// their callbacks are gone they run as the uninstrumented build's.
//
// What it hoists, per innermost loop:
//  - the loop has a preheader, a single exiting block which is its latch (it runs its body
//    exactly backedge-taken-count + 1 times once entered), and a backedge-taken count that
//    ScalarEvolution computes exactly;
//  - the loop contains no call other than TSan's plain access callbacks and intrinsics that
//    touch no memory (any other call could synchronise, start or complete an RMA operation);
//  - a callback is taken if its block dominates the latch (runs on every iteration) and its
//    address is loop-invariant or an affine recurrence {start,+,step} of that loop with a
//    constant step;
//  - callbacks of one source line whose addresses have the same base and step and start a
//    constant distance apart form a group; per kind (read / write), the bytes one iteration of
//    the group touches split into contiguous pieces, and a piece at least |step| bytes long
//    covers, over all iterations, exactly one contiguous range: that range becomes one call
//    before the loop (__hrace_range_read / __hrace_range_write), the piece's callbacks are
//    deleted. A piece shorter than |step| (a strided access) would cover bytes the loop never
//    touches: its callbacks stay. A read piece inside a write piece of the same group is
//    dropped (a write conflicts with everything a read of the same bytes conflicts with, and
//    both are reported at the same line). One line per group, because a range is reported at
//    one line: a piece merged from two lines would name one of them for bytes only the other
//    touches.
// The range call carries the debug location of the first callback of its piece, so a race on
// it is reported at that source line.
//
// Then, children before parents, each outer loop whose whole nest makes no other call
// (hoistNest): the checks in its own blocks, the inner loops' range calls included, become
// calls before it; a piece that does not cover its step becomes a strided call
// (__hrace_range_*_strided: `count` ranges at a stride), and checks in blocks that run under a
// condition the loop does not change are hoisted under that condition (docs/access.md, "Loop
// nests").
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Analysis/CaptureTracking.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/LoopIterator.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/Local.h"
#include "llvm/Transforms/Utils/LoopSimplify.h"
#include "llvm/Transforms/Utils/ScalarEvolutionExpander.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>

using namespace llvm;

namespace {

// HRACE_CC_HOIST=0 (hrace-cc's environment, which clang inherits): no loop hoisting; the
// instrumentation of the accesses TSan skips (below) stays.
static bool hoistOn() {
  static int v = [] {
    const char *e = std::getenv("HRACE_CC_HOIST");
    return !(e && !strcmp(e, "0"));
  }();
  return v;
}

static bool verbose() {
  static int v = [] {
    const char *e = std::getenv("HRACE_PASS_VERBOSE");
    return e && *e && *e != '0';
  }();
  return v;
}

// A TSan plain access callback: its size in bytes and whether it writes. False for anything
// else (volatile, atomic, _pc, range and function entry / exit callbacks are not hoisted).
static bool accessCallback(StringRef Name, unsigned &Size, bool &Write) {
  if (!Name.consume_front("__tsan_")) return false;
  Name.consume_front("unaligned_");
  if (Name.consume_front("read")) Write = false;
  else if (Name.consume_front("write")) Write = true;
  else return false;
  if (Name.getAsInteger(10, Size)) return false;
  return Size == 1 || Size == 2 || Size == 4 || Size == 8 || Size == 16;
}

// One of the range calls this pass emits for an access of a constant size (wideAccesses).
static bool rangeCallback(const CallBase &C, unsigned &Size, bool &Write) {
  const Function *Callee = C.getCalledFunction();
  if (!Callee || C.arg_size() != 2) return false;
  StringRef Name = Callee->getName();
  if (Name == "__hrace_range_read") Write = false;
  else if (Name == "__hrace_range_write") Write = true;
  else return false;
  auto *N = dyn_cast<ConstantInt>(C.getArgOperand(1));
  if (!N || N->isZero() || N->getZExtValue() > (1u << 20)) return false;
  Size = (unsigned)N->getZExtValue();
  return true;
}

// LLVM 14's TSan instruments loads and stores of 1, 2, 4, 8 and 16 bytes only and silently
// skips the others: 32-byte vectors (the loop vectoriser's interleaved groups, e.g. <4 x double>
// for p[2i] and p[2i+1], even on SSE2), x86 long double (10 bytes), odd vectors (<3 x float>).
// A race on them went unreported (so did one on masked vector loads / stores, below). Give each
// such access of an instrumented function a range
// call of its size with its debug location; like TSan, skip locals whose address never escapes
// (no other thread or rank can reach them).
static bool wideAccesses(Function &F) {
  if (!F.hasFnAttribute(Attribute::SanitizeThread)) return false;
  const DataLayout &DL = F.getParent()->getDataLayout();
  LLVMContext &Ctx = F.getContext();
  Type *I8P = Type::getInt8PtrTy(Ctx), *IntPtr = DL.getIntPtrType(Ctx);
  SmallVector<Instruction *, 8> Todo;
  DenseMap<const AllocaInst *, bool> Escapes;   // does the local's address escape?
  for (Instruction &I : instructions(F)) {
    Value *Ptr;
    Type *Ty;
    if (auto *Ld = dyn_cast<LoadInst>(&I)) {
      if (Ld->isAtomic()) continue;
      Ptr = Ld->getPointerOperand(), Ty = Ld->getType();
    } else if (auto *St = dyn_cast<StoreInst>(&I)) {
      if (St->isAtomic()) continue;
      Ptr = St->getPointerOperand(), Ty = St->getValueOperand()->getType();
    } else {
      continue;
    }
    if (Ptr->getType()->getPointerAddressSpace() != 0 || !Ty->isSized()) continue;
    TypeSize TS = DL.getTypeStoreSize(Ty);
    if (TS.isScalable()) continue;
    uint64_t Size = TS.getFixedSize();
    if (!Size) continue;
    auto *A = dyn_cast<AllocaInst>(getUnderlyingObject(Ptr));
    if (Size == 1 || Size == 2 || Size == 4 || Size == 8 || Size == 16) {
      // TSan instruments these sizes, but skips a local's access when the pointer it goes
      // through is not captured, and asks that of the pointer (a GEP into the local), not of
      // the local: `buf[2] = 7` after MPI_Isend(buf, ...) or MPI_Get(buf, ...) got no callback,
      // and its race with the call was missed (issue 22, stack buffers). If the local itself
      // escapes, MPI or another thread may touch it: check the access (TSan left it alone, so
      // this is its only check).
      if (!A || PointerMayBeCaptured(Ptr, true, true)) continue;
      auto It = Escapes.find(A);
      if (It == Escapes.end()) It = Escapes.insert({A, PointerMayBeCaptured(A, true, true)}).first;
      if (!It->second) continue;
      Todo.push_back(&I);
      continue;
    }
    if (A && !PointerMayBeCaptured(Ptr, true, true)) continue;
    Todo.push_back(&I);
  }
  SmallVector<IntrinsicInst *, 4> Masked;
  for (Instruction &I : instructions(F))
    if (auto *II = dyn_cast<IntrinsicInst>(&I))
      if (II->getIntrinsicID() == Intrinsic::masked_load ||
          II->getIntrinsicID() == Intrinsic::masked_store) {
        bool W = II->getIntrinsicID() == Intrinsic::masked_store;
        auto *VT = dyn_cast<FixedVectorType>(W ? II->getArgOperand(0)->getType() : II->getType());
        Value *Ptr = II->getArgOperand(W ? 1 : 0);
        if (VT && VT->getNumElements() <= 64 && Ptr->getType()->getPointerAddressSpace() == 0 &&
            !(isa<AllocaInst>(getUnderlyingObject(Ptr)) && !PointerMayBeCaptured(Ptr, true, true)))
          Masked.push_back(II);
      }
  if (Todo.empty() && Masked.empty()) return false;
  Module &M = *F.getParent();
  FunctionCallee Fn[2] = {
      M.getOrInsertFunction("__hrace_range_read", Type::getVoidTy(Ctx), I8P, IntPtr),
      M.getOrInsertFunction("__hrace_range_write", Type::getVoidTy(Ctx), I8P, IntPtr)};
  // The masked loads and stores of vectorised conditional code (AVX targets): TSan skips them
  // too. Each becomes a call with the mask as lane bits; the runtime checks the set lanes only.
  Type *I64 = Type::getInt64Ty(Ctx);
  FunctionCallee MFn[2] = {
      M.getOrInsertFunction("__hrace_masked_read", Type::getVoidTy(Ctx), I8P, I64, IntPtr),
      M.getOrInsertFunction("__hrace_masked_write", Type::getVoidTy(Ctx), I8P, I64, IntPtr)};
  for (IntrinsicInst *II : Masked) {
    bool W = II->getIntrinsicID() == Intrinsic::masked_store;
    auto *VT = cast<FixedVectorType>(W ? II->getArgOperand(0)->getType() : II->getType());
    Value *Ptr = II->getArgOperand(W ? 1 : 0), *Mask = II->getArgOperand(W ? 3 : 2);
    unsigned N = VT->getNumElements();
    uint64_t Elt = DL.getTypeStoreSize(VT->getElementType()).getFixedSize();
    IRBuilder<> B(II);
    Value *Bits = B.CreateZExt(B.CreateBitCast(Mask, Type::getIntNTy(Ctx, N)), I64);
    CallInst *C = B.CreateCall(MFn[W], {B.CreatePointerCast(Ptr, I8P), Bits, ConstantInt::get(IntPtr, Elt)});
    C->setDebugLoc(II->getDebugLoc());
    if (verbose())
      errs() << "hrace-pass: " << F.getName() << ": masked " << (W ? "store" : "load") << " of "
             << N << " x " << Elt << " bytes instrumented at line "
             << (II->getDebugLoc() ? II->getDebugLoc().getLine() : 0) << "\n";
  }
  for (Instruction *I : Todo) {
    bool Write = isa<StoreInst>(I);
    Value *Ptr = Write ? cast<StoreInst>(I)->getPointerOperand() : cast<LoadInst>(I)->getPointerOperand();
    Type *Ty = Write ? cast<StoreInst>(I)->getValueOperand()->getType() : I->getType();
    IRBuilder<> B(I);
    CallInst *C = B.CreateCall(Fn[Write], {B.CreatePointerCast(Ptr, I8P),
                                           ConstantInt::get(IntPtr, DL.getTypeStoreSize(Ty).getFixedSize())});
    C->setDebugLoc(I->getDebugLoc());
    if (verbose())
      errs() << "hrace-pass: " << F.getName() << ": " << (Write ? "write" : "read") << " of "
             << DL.getTypeStoreSize(Ty).getFixedSize() << " bytes instrumented at line "
             << (I->getDebugLoc() ? I->getDebugLoc().getLine() : 0) << "\n";
  }
  return true;
}

// May this call stay in a hoisted loop: an intrinsic that reads and writes no memory, or a
// debug / lifetime / assume marker.
static bool harmlessCall(const CallBase &C) {
  const auto *II = dyn_cast<IntrinsicInst>(&C);
  if (!II) return false;
  if (isa<DbgInfoIntrinsic>(II)) return true;
  switch (II->getIntrinsicID()) {
  case Intrinsic::lifetime_start:
  case Intrinsic::lifetime_end:
  case Intrinsic::assume:
  case Intrinsic::experimental_noalias_scope_decl:
  case Intrinsic::pseudoprobe:
    return true;
  default:
    break;
  }
  return II->doesNotAccessMemory() && !II->mayHaveSideEffects();
}

// A range call this pass made for an inner loop (its length depends on the inner loop's count:
// not a constant), or for a deeper nest (strided: not hoisted again, see hoistNest).
static bool ownRange(const CallBase &C, bool &Write, bool &Strided) {
  const Function *Callee = C.getCalledFunction();
  if (!Callee) return false;
  StringRef Name = Callee->getName();
  if (!Name.consume_front("__hrace_range_")) return false;
  if (Name.consume_front("read")) Write = false;
  else if (Name.consume_front("write")) Write = true;
  else return false;
  Strided = Name == "_strided";
  return Strided ? C.arg_size() == 4 : Name.empty() && C.arg_size() == 2;
}

// The shape both hoistings need: a single exiting block which is the latch (the loop runs its
// body exactly count + 1 times once entered), and an exact backedge-taken count no wider than
// a pointer that can be computed before the loop (it must not divide by a value that may be
// zero). The vectoriser leaves its vector loop without a dedicated preheader (its predecessor
// also branches to the scalar loop): Pre is then null, and the caller makes one on the edge
// from the single outside predecessor Pred once the loop has something to hoist. Returns the
// count, or null.
static const SCEV *countedLoop(Loop *L, ScalarEvolution &SE, const DataLayout &DL, BasicBlock *&Pre,
                               BasicBlock *&Pred) {
  Pre = L->getLoopPreheader();
  Pred = Pre ? Pre : L->getLoopPredecessor();
  BasicBlock *Latch = L->getLoopLatch();
  if (!Pred || !Latch || L->getExitingBlock() != Latch) return nullptr;
  if (!Pre &&
      (isa<IndirectBrInst>(Pred->getTerminator()) || isa<CallBrInst>(Pred->getTerminator())))
    return nullptr;
  const SCEV *BTC = SE.getBackedgeTakenCount(L);
  Type *IntPtr = DL.getIntPtrType(L->getHeader()->getContext());
  if (isa<SCEVCouldNotCompute>(BTC) ||
      SE.getTypeSizeInBits(BTC->getType()) > DL.getTypeSizeInBits(IntPtr) ||
      !isSafeToExpandAt(BTC, Pred->getTerminator(), SE))
    return nullptr;
  return BTC;
}

// A fence, atomic or volatile access (often a flag another thread or rank sets): nothing in
// its loop is hoisted.
static bool ordersMemory(const Instruction &I) {
  if (isa<FenceInst>(I) || isa<AtomicRMWInst>(I) || isa<AtomicCmpXchgInst>(I)) return true;
  if (auto *Ld = dyn_cast<LoadInst>(&I)) return !Ld->isUnordered();
  if (auto *St = dyn_cast<StoreInst>(&I)) return !St->isUnordered();
  return false;
}

struct Access {
  CallInst *Call;
  const SCEV *Start;   // address in iteration 0
  int64_t Off;         // Start - group's reference start, in bytes
  unsigned Size;       // 0: a range call of length Len (alone in its group)
  const SCEV *Len;
};

struct Piece {
  int64_t Lo, Hi;      // [Lo, Hi) relative to the group's reference start
  bool Write;
  SmallVector<Access *, 4> Members;
};

struct Group {
  const SCEV *Base;
  const SCEV *Step;
  unsigned Line;       // source line and file of the accesses: a range is reported at one
  StringRef File;      // line, so accesses of different lines never share one
  const SCEV *Ref;     // reference start
  Value *Cond;         // nests: the i1 (in the preheader) under which the accesses' block runs
                       // in every iteration (else in none); null: always
  SmallVector<Access, 4> Acc[2];   // [0] reads, [1] writes
};

// Add a check (address SCEV Start, step Step) to the group of its line, base, step and
// condition whose reference start lies a constant distance away, or to a new group. A range
// call of a variable length gets a group of its own.
static void addAccess(SmallVectorImpl<Group> &Groups, ScalarEvolution &SE, CallInst *CB,
                      bool Write, const SCEV *Start, const SCEV *Step, unsigned Size,
                      const SCEV *Len, Value *Cond) {
  const SCEV *Base = SE.getPointerBase(Start);
  unsigned Line = 0;
  StringRef File;
  if (const DILocation *DL = CB->getDebugLoc().get())
    Line = DL->getLine(), File = DL->getFilename();
  Group *G = nullptr;
  int64_t Off = 0;
  for (Group &Cand : Groups) {
    if (Len || Cand.Base != Base || Cand.Step != Step || Cand.Line != Line || Cand.File != File ||
        Cand.Cond != Cond || (!Cand.Acc[0].empty() && !Cand.Acc[0][0].Size) ||
        (!Cand.Acc[1].empty() && !Cand.Acc[1][0].Size))
      continue;
    auto *D = dyn_cast<SCEVConstant>(SE.getMinusSCEV(Start, Cand.Ref));
    if (!D || D->getAPInt().getMinSignedBits() > 40) continue;
    G = &Cand, Off = D->getAPInt().getSExtValue();
    break;
  }
  if (!G) {
    Groups.push_back(Group{Base, Step, Line, File, Start, Cond, {}});
    G = &Groups.back();
  }
  G->Acc[Write].push_back(Access{CB, Start, Off, Size, Len});
}

// Per kind, the bytes one iteration of the group touches, as contiguous pieces.
static void makePieces(Group &G, SmallVector<Piece, 4> Pieces[2]) {
  for (int W = 0; W < 2; W++) {
    SmallVector<Access *, 8> Sorted;
    for (Access &A : G.Acc[W]) Sorted.push_back(&A);
    std::sort(Sorted.begin(), Sorted.end(),
              [](const Access *X, const Access *Y) { return X->Off < Y->Off; });
    for (Access *A : Sorted) {
      if (Pieces[W].empty() || A->Off > Pieces[W].back().Hi)
        Pieces[W].push_back(Piece{A->Off, A->Off + (int64_t)A->Size, W == 1, {}});
      Piece &P = Pieces[W].back();
      P.Hi = std::max(P.Hi, A->Off + (int64_t)A->Size);
      P.Members.push_back(A);
    }
  }
}

// The piece's callbacks are checked before the loop now: delete them.
static void eraseMembers(Piece &P) {
  for (Access *A : P.Members) {
    Value *Arg = A->Call->getArgOperand(0);
    A->Call->eraseFromParent();
    if (auto *AI = dyn_cast<Instruction>(Arg))
      if (AI->use_empty() && isa<CastInst>(AI)) AI->eraseFromParent();
  }
}

class HoistPass : public PassInfoMixin<HoistPass> {
  bool Hoist;   // false at -O0: loops are not in a form worth analysing, only wideAccesses runs

public:
  explicit HoistPass(bool Hoist) : Hoist(Hoist) {}
  // Runs on optnone functions (every function at -O0) too: the wide accesses must be checked.
  static bool isRequired() { return true; }

  PreservedAnalyses run(Function &F, FunctionAnalysisManager &FAM) {
    bool Wide = wideAccesses(F);
    if (!Hoist || !hoistOn()) return Wide ? PreservedAnalyses::none() : PreservedAnalyses::all();
    bool HasTsan = Wide;
    for (Instruction &I : instructions(F))
      if (auto *C = dyn_cast<CallInst>(&I))
        if (Function *Callee = C->getCalledFunction())
          if (Callee->getName().startswith("__tsan_")) {
            HasTsan = true;
            break;
          }
    if (!HasTsan) return PreservedAnalyses::all();   // (Wide implies HasTsan)
    // A plain access callback returns to its caller and throws nothing (hrace's callbacks
    // check, record and return; only halt_on_error ends the process inside one, where a
    // hoisted range ends it earlier anyway). Without saying so, ScalarEvolution takes every
    // callback for a possible abnormal exit of its loop and gives up on a count it can only
    // compute through the induction variable's no-wrap flags: a loop that the unroller left
    // with `iv += 2 ... iv == end` (after a prologue of one iteration) had no count, so its
    // callbacks stayed (the wavefront kernel's row loop, 3 callbacks per cell). Said on the
    // call sites, before ScalarEvolution is computed.
    for (Instruction &I : instructions(F))
      if (auto *C = dyn_cast<CallInst>(&I))
        if (Function *Callee = C->getCalledFunction()) {
          unsigned Size;
          bool Write;
          if (accessCallback(Callee->getName(), Size, Write)) {
            C->addFnAttr(Attribute::NoUnwind);
            C->addFnAttr(Attribute::WillReturn);
          }
        }
    auto &LI = FAM.getResult<LoopAnalysis>(F);
    auto &SE = FAM.getResult<ScalarEvolutionAnalysis>(F);
    auto &DT = FAM.getResult<DominatorTreeAnalysis>(F);
    bool Changed = false;
    SmallVector<Loop *, 8> Loops = LI.getLoopsInPreorder();
    for (Loop *L : Loops)
      if (L->isInnermost()) Changed |= hoistLoop(F, L, SE, DT, LI);
    // Then their parents, children before parents (reversed preorder): a nest's calls, once
    // hoisted into its preheader, are its parent's to hoist.
    for (auto It = Loops.rbegin(); It != Loops.rend(); ++It)
      if (!(*It)->isInnermost()) Changed |= hoistNest(F, *It, SE, DT, LI);
    if (!Changed && !Wide) return PreservedAnalyses::all();
    PreservedAnalyses PA;   // preheaders may have been added: nothing preserved but the loops
    PA.preserve<LoopAnalysis>();
    PA.preserve<DominatorTreeAnalysis>();
    return PA;
  }

private:
  bool hoistLoop(Function &F, Loop *L, ScalarEvolution &SE, DominatorTree &DT, LoopInfo &LI) {
    const DataLayout &DL = F.getParent()->getDataLayout();
    BasicBlock *Pre, *Pred, *Latch = L->getLoopLatch();
    const SCEV *BTC = countedLoop(L, SE, DL, Pre, Pred);
    if (!BTC) return false;
    Type *IntPtr = DL.getIntPtrType(F.getContext());

    SmallVector<Group, 4> Groups;
    for (BasicBlock *BB : L->blocks()) {
      bool EveryIter = DT.dominates(BB, Latch);
      for (Instruction &I : *BB) {
        if (ordersMemory(I)) return false;
        auto *CB = dyn_cast<CallBase>(&I);
        if (!CB) continue;
        Function *Callee = CB->getCalledFunction();
        unsigned Size;
        bool Write;
        if (!Callee || !isa<CallInst>(CB) ||
            !(accessCallback(Callee->getName(), Size, Write) || rangeCallback(*CB, Size, Write))) {
          if (harmlessCall(*CB)) continue;
          return false;   // a call that may synchronise: nothing in this loop is hoisted
        }
        if (!EveryIter) continue;
        Value *Ptr = CB->getArgOperand(0)->stripPointerCasts();
        if (!Ptr->getType()->isPointerTy() || Ptr->getType()->getPointerAddressSpace() != 0)
          continue;
        const SCEV *S = SE.getSCEV(Ptr);
        const SCEV *Start;
        int64_t Step;
        if (SE.isLoopInvariant(S, L)) {
          Start = S, Step = 0;
        } else if (auto *AR = dyn_cast<SCEVAddRecExpr>(S)) {
          if (AR->getLoop() != L || !AR->isAffine()) continue;
          auto *C = dyn_cast<SCEVConstant>(AR->getStepRecurrence(SE));
          if (!C || C->getAPInt().getMinSignedBits() > 40) continue;
          Start = AR->getStart(), Step = C->getAPInt().getSExtValue();
        } else {
          continue;
        }
        if (!isSafeToExpandAt(Start, Pred->getTerminator(), SE)) continue;
        addAccess(Groups, SE, cast<CallInst>(CB), Write, Start, SE.getConstant(IntPtr, Step, true),
                  Size, nullptr, nullptr);
      }
    }
    if (Groups.empty()) return false;
    if (!Pre && !(Pre = InsertPreheaderForLoop(L, &DT, &LI, nullptr, false))) return false;

    bool Changed = false;
    IRBuilder<> B(Pre->getTerminator());
    SCEVExpander Exp(SE, DL, "hrace.range");
    Module &M = *F.getParent();
    Type *I8P = Type::getInt8PtrTy(F.getContext());
    FunctionCallee Fn[2] = {
        M.getOrInsertFunction("__hrace_range_read", Type::getVoidTy(F.getContext()), I8P, IntPtr),
        M.getOrInsertFunction("__hrace_range_write", Type::getVoidTy(F.getContext()), I8P, IntPtr)};
    const SCEV *Iters = SE.getTruncateOrZeroExtend(BTC, IntPtr);
    for (Group &G : Groups) {
      int64_t Step = cast<SCEVConstant>(G.Step)->getAPInt().getSExtValue();
      uint64_t AStep = Step < 0 ? -(uint64_t)Step : (uint64_t)Step;
      SmallVector<Piece, 4> Pieces[2];
      makePieces(G, Pieces);
      // Reads first: the order of a read-modify-write, so that the shadow ends as the
      // per-access callbacks would leave it (the write last, its reads cleared).
      for (int W = 0; W < 2; W++) {
        for (Piece &P : Pieces[W]) {
          if ((uint64_t)(P.Hi - P.Lo) < AStep) continue;   // strided: gaps between iterations
          bool Covered = false;
          if (!W)
            for (Piece &Wp : Pieces[1])
              if ((uint64_t)(Wp.Hi - Wp.Lo) >= AStep && Wp.Lo <= P.Lo && P.Hi <= Wp.Hi)
                Covered = true;
          if (!Covered) {
            // lo = Ref + Lo (+ Step * BTC when the addresses go down); len = |Step| * BTC + Hi - Lo.
            const SCEV *Lo = SE.getAddExpr(G.Ref, SE.getConstant(IntPtr, P.Lo, true));
            if (Step < 0)
              Lo = SE.getAddExpr(Lo, SE.getMulExpr(Iters, G.Step));
            const SCEV *Len = SE.getAddExpr(SE.getMulExpr(Iters, SE.getConstant(IntPtr, AStep)),
                                            SE.getConstant(IntPtr, P.Hi - P.Lo));
            Value *LoV = Exp.expandCodeFor(Lo, I8P, Pre->getTerminator());
            Value *LenV = Exp.expandCodeFor(Len, IntPtr, Pre->getTerminator());
            B.SetInsertPoint(Pre->getTerminator());
            CallInst *RC = B.CreateCall(Fn[W], {LoV, LenV});
            RC->setDebugLoc(P.Members.front()->Call->getDebugLoc());
            if (verbose())
              errs() << "hrace-pass: " << F.getName() << ": " << (W ? "write" : "read")
                     << " range of " << P.Members.size() << " access(es) hoisted at line "
                     << (RC->getDebugLoc() ? RC->getDebugLoc().getLine() : 0) << "\n";
          } else if (verbose()) {
            DebugLoc D = P.Members.front()->Call->getDebugLoc();
            errs() << "hrace-pass: " << F.getName() << ": read range of " << P.Members.size()
                   << " access(es) covered by a write range, hoisted at line "
                   << (D ? D.getLine() : 0) << "\n";
          }
          eraseMembers(P);
          Changed = true;
        }
      }
    }
    return Changed;
  }

  // A loop with loops inside (docs/access.md, "Loop nests"): after its inner loops were hoisted,
  // the checks left in its own blocks (callbacks, and the range calls hoisted into the inner
  // loops' preheaders) become per-nest calls before it, if the whole nest makes no other call.
  bool hoistNest(Function &F, Loop *L, ScalarEvolution &SE, DominatorTree &DT, LoopInfo &LI) {
    const DataLayout &DL = F.getParent()->getDataLayout();
    BasicBlock *Pre, *Pred, *Latch = L->getLoopLatch();
    const SCEV *BTC = countedLoop(L, SE, DL, Pre, Pred);
    if (!BTC) return false;
    LLVMContext &Ctx = F.getContext();
    Type *IntPtr = DL.getIntPtrType(Ctx);
    // Every loop inside ends (a count) and leaves by one edge, so that a block behind it runs
    // once per entry into it.
    for (Loop *S : L->getLoopsInPreorder())
      if (S != L && (!S->getExitingBlock() || !S->getExitBlock() ||
                     isa<SCEVCouldNotCompute>(SE.getBackedgeTakenCount(S))))
        return false;

    struct Check {
      CallInst *Call;
      bool Write;
      unsigned Size;      // 0: a range call of length Len
      const SCEV *Len;
    };
    SmallVector<Check, 16> Checks;
    bool Uniform = true;  // every branch in L's own blocks (but the latch's) invariant in L
    for (BasicBlock *BB : L->blocks()) {
      bool Own = LI.getLoopFor(BB) == L;
      if (Own && BB != Latch) {
        auto *Br = dyn_cast<BranchInst>(BB->getTerminator());
        if (!Br || (Br->isConditional() && !L->isLoopInvariant(Br->getCondition())))
          Uniform = false;
      }
      for (Instruction &I : *BB) {
        if (ordersMemory(I)) return false;
        auto *CB = dyn_cast<CallBase>(&I);
        if (!CB) continue;
        Function *Callee = CB->getCalledFunction();
        unsigned Size = 0;
        bool Write, Strided = false;
        if (!Callee || !isa<CallInst>(CB) ||
            !(accessCallback(Callee->getName(), Size, Write) || rangeCallback(*CB, Size, Write) ||
              ownRange(*CB, Write, Strided))) {
          if (harmlessCall(*CB)) continue;
          return false;   // a call that may synchronise: nothing in this nest is hoisted
        }
        if (Own && !Strided)
          Checks.push_back(Check{cast<CallInst>(CB), Write, Size,
                                 Size ? nullptr : SE.getSCEV(CB->getArgOperand(1))});
      }
    }
    if (Checks.empty()) return false;
    if (!Pre && !(Pre = InsertPreheaderForLoop(L, &DT, &LI, nullptr, false))) return false;
    Instruction *At = Pre->getTerminator();

    // Whether a block of L runs in an iteration, as an i1 computed in the preheader: with every
    // branch of L's own blocks on a value from outside L and every inner loop ending by its one
    // exit edge, each iteration takes the same path, decided by those values. A block runs iff
    // one of its predecessors runs and branches to it (a predecessor inside an inner loop: that
    // loop's exit, taken once each time its header is entered from outside). Reverse post-order
    // visits predecessors first, the latch's back edge aside (irreducible flow: a predecessor
    // not seen yet, and only the blocks that dominate the latch are taken).
    IRBuilder<> B(At);
    Value *True = ConstantInt::getTrue(Ctx), *False = ConstantInt::getFalse(Ctx);
    auto And = [&](Value *X, Value *Y) -> Value * {
      if (X == False || Y == False) return False;
      return X == True ? Y : Y == True ? X : B.CreateAnd(X, Y, "hrace.runs");
    };
    auto Or = [&](Value *X, Value *Y) -> Value * {
      if (X == True || Y == True) return True;
      return X == False ? Y : Y == False ? X : B.CreateOr(X, Y, "hrace.runs");
    };
    DenseMap<BasicBlock *, Value *> Runs;
    if (Uniform) {
      Runs[L->getHeader()] = True;
      LoopBlocksRPO RPO(L);
      RPO.perform(&LI);
      for (BasicBlock *X : RPO) {
        Loop *XL = LI.getLoopFor(X);
        if (X == L->getHeader() || (XL != L && !(XL->getParentLoop() == L && XL->getHeader() == X)))
          continue;
        Value *R = False;
        for (BasicBlock *P : predecessors(X)) {
          if (XL != L && XL->contains(P)) continue;   // the inner loop's own back edge
          Loop *PL = LI.getLoopFor(P);
          while (PL != L && PL->getParentLoop() != L) PL = PL->getParentLoop();
          Value *E = Runs.lookup(PL == L ? P : PL->getHeader());
          if (!E) {
            Uniform = false;
            break;
          }
          auto *Br = cast<BranchInst>(P->getTerminator());
          if (E != False && PL == L && Br->isConditional() &&
              Br->getSuccessor(0) != Br->getSuccessor(1)) {
            Value *C = Br->getCondition();
            E = And(E, Br->getSuccessor(0) == X ? C : B.CreateNot(C));
          }
          R = Or(R, E);
        }
        if (!Uniform) break;
        Runs[X] = R;
      }
    }

    SmallVector<Group, 8> Groups;
    for (Check &C : Checks) {
      BasicBlock *BB = C.Call->getParent();
      Value *Cond = nullptr;
      if (!DT.dominates(BB, Latch)) {
        if (!Uniform || !(Cond = Runs.lookup(BB)) || Cond == False) continue;
        if (Cond == True) Cond = nullptr;
      }
      Value *Ptr = C.Call->getArgOperand(0)->stripPointerCasts();
      if (!Ptr->getType()->isPointerTy() || Ptr->getType()->getPointerAddressSpace() != 0) continue;
      const SCEV *S = SE.getSCEV(Ptr), *Start, *Step;
      if (SE.isLoopInvariant(S, L)) {
        Start = S, Step = SE.getZero(IntPtr);
      } else if (auto *AR = dyn_cast<SCEVAddRecExpr>(S)) {
        if (AR->getLoop() != L || !AR->isAffine()) continue;
        Start = AR->getStart();
        Step = SE.getTruncateOrSignExtend(AR->getStepRecurrence(SE), IntPtr);
      } else {
        continue;
      }
      if (!isSafeToExpandAt(Start, At, SE) || !isSafeToExpandAt(Step, At, SE) ||
          (C.Len && (!SE.isLoopInvariant(C.Len, L) || !isSafeToExpandAt(C.Len, At, SE))))
        continue;
      addAccess(Groups, SE, C.Call, C.Write, Start, Step, C.Size, C.Len, Cond);
    }

    bool Changed = false;
    SCEVExpander Exp(SE, DL, "hrace.nest");
    Module &M = *F.getParent();
    Type *I8P = Type::getInt8PtrTy(Ctx), *Void = Type::getVoidTy(Ctx);
    FunctionCallee Fn[2] = {M.getOrInsertFunction("__hrace_range_read", Void, I8P, IntPtr),
                            M.getOrInsertFunction("__hrace_range_write", Void, I8P, IntPtr)};
    FunctionCallee SFn[2] = {
        M.getOrInsertFunction("__hrace_range_read_strided", Void, I8P, IntPtr, IntPtr, IntPtr),
        M.getOrInsertFunction("__hrace_range_write_strided", Void, I8P, IntPtr, IntPtr, IntPtr)};
    const SCEV *Iters = SE.getTruncateOrZeroExtend(BTC, IntPtr);
    Value *Zero = ConstantInt::get(IntPtr, 0);
    for (Group &G : Groups) {
      auto *CStep = dyn_cast<SCEVConstant>(G.Step);
      int64_t Step = CStep ? CStep->getAPInt().getSExtValue() : 0;
      uint64_t AStep = Step < 0 ? -(uint64_t)Step : (uint64_t)Step;
      SmallVector<Piece, 4> Pieces[2];
      makePieces(G, Pieces);
      // Reads first, as in hoistLoop. Every piece is hoisted: one range when consecutive
      // iterations' pieces touch (known only for a constant step), else the strided call, which
      // merges them at run time when they do.
      for (int W = 0; W < 2; W++) {
        for (Piece &P : Pieces[W]) {
          const SCEV *VarLen = P.Members.front()->Len;
          bool Covered = false;
          if (!W && !VarLen)
            for (Piece &Wp : Pieces[1])
              if (Wp.Lo <= P.Lo && P.Hi <= Wp.Hi) Covered = true;
          DebugLoc D = P.Members.front()->Call->getDebugLoc();
          bool Whole = CStep && !VarLen && (uint64_t)(P.Hi - P.Lo) >= AStep;
          if (!Covered) {
            const SCEV *Lo = SE.getAddExpr(G.Ref, SE.getConstant(IntPtr, P.Lo, true));
            const SCEV *Len = VarLen ? VarLen : SE.getConstant(IntPtr, P.Hi - P.Lo);
            CallInst *RC;
            if (Whole) {   // as hoistLoop's range
              if (Step < 0) Lo = SE.getAddExpr(Lo, SE.getMulExpr(Iters, G.Step));
              Len = SE.getAddExpr(SE.getMulExpr(Iters, SE.getConstant(IntPtr, AStep)), Len);
              Value *LoV = Exp.expandCodeFor(Lo, I8P, At);
              Value *LenV = Exp.expandCodeFor(Len, IntPtr, At);
              B.SetInsertPoint(At);
              if (G.Cond) LenV = B.CreateSelect(G.Cond, LenV, Zero);
              RC = B.CreateCall(Fn[W], {LoV, LenV});
            } else {
              Value *LoV = Exp.expandCodeFor(Lo, I8P, At);
              Value *LenV = Exp.expandCodeFor(Len, IntPtr, At);
              Value *StepV = Exp.expandCodeFor(G.Step, IntPtr, At);
              Value *CountV =
                  Exp.expandCodeFor(SE.getAddExpr(Iters, SE.getOne(IntPtr)), IntPtr, At);
              B.SetInsertPoint(At);
              if (G.Cond) CountV = B.CreateSelect(G.Cond, CountV, Zero);
              RC = B.CreateCall(SFn[W], {LoV, LenV, StepV, CountV});
            }
            RC->setDebugLoc(D);
          }
          if (verbose())
            errs() << "hrace-pass: " << F.getName() << ": " << (W ? "write" : "read")
                   << (Whole ? " range" : " strided range") << " of " << P.Members.size()
                   << " check(s)" << (G.Cond ? " (under a condition)" : "")
                   << (Covered ? " covered by a write range," : "")
                   << " hoisted out of an outer loop at line " << (D ? D.getLine() : 0) << "\n";
          eraseMembers(P);
          Changed = true;
        }
      }
    }
    // The conditions no call used (handles: deleting one may delete another).
    SmallVector<WeakTrackingVH, 8> Conds;
    for (auto &R : Runs) Conds.push_back(R.second);
    for (WeakTrackingVH &V : Conds)
      if (auto *I = dyn_cast_or_null<Instruction>(V)) RecursivelyDeleteTriviallyDeadInstructions(I);
    return Changed;
  }
};

} // namespace

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "hrace-pass", "0.1", [](PassBuilder &PB) {
            static bool Registered = false;
            PassBuilder *PBp = &PB;
            // Registered from PipelineStart so that it lands behind the sanitizers' own
            // OptimizerLast callbacks (see the top of this file).
            PB.registerPipelineStartEPCallback(
                [PBp](ModulePassManager &, OptimizationLevel) {
                  if (Registered) return;
                  Registered = true;
                  PBp->registerOptimizerLastEPCallback(
                      [](ModulePassManager &MPM, OptimizationLevel Level) {
                        MPM.addPass(createModuleToFunctionPassAdaptor(
                            HoistPass(Level != OptimizationLevel::O0)));
                      });
                });
            // For opt: -passes=hrace-hoist
            PB.registerPipelineParsingCallback(
                [](StringRef Name, FunctionPassManager &FPM, ArrayRef<PassBuilder::PipelineElement>) {
                  if (Name != "hrace-hoist") return false;
                  FPM.addPass(HoistPass(true));
                  return true;
                });
          }};
}
