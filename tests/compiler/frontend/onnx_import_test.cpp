// ONNX import: models built here with ONNX's own protobuf classes (weights in initializers, raw or
// typed, and in Constant nodes; symbolic dimensions) and every rejection the importer promises,
// each a single line naming the node, its op type and the reason.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <fstream>

#include "compiler_test_util.h"
#include "systole/compiler/onnx_import.h"
#include "systole/isa/diagnostic.h"

namespace systole::testing {
namespace {

using compiler::importOnnxBytes;

void setShape(onnx::ValueInfoProto* vi, const Shape& shape, int32_t type = onnx::TensorProto::FLOAT) {
  auto* tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(type);
  auto* s = tt->mutable_shape();
  for (int64_t d : shape) {
    if (d < 0)
      s->add_dim()->set_dim_param("batch");
    else
      s->add_dim()->set_dim_value(d);
  }
}

/// y = MatMul(x, W) + b, x [N, 4] (N symbolic when batch < 0), W [4, 3] in `wHow`, b [3].
onnx::ModelProto linearModel(int64_t opset, const std::string& wHow, int64_t batch = 2) {
  onnx::ModelProto m;
  m.set_ir_version(7);
  auto* imp = m.add_opset_import();
  imp->set_domain("");
  imp->set_version(opset);
  auto* g = m.mutable_graph();
  g->set_name("linear");
  setShape(g->add_input(), {batch, 4});
  g->mutable_input(0)->set_name("x");
  onnx::TensorProto w;
  w.set_name("W");
  w.set_data_type(onnx::TensorProto::FLOAT);
  w.add_dims(4);
  w.add_dims(3);
  std::vector<float> wv(12);
  for (int i = 0; i < 12; ++i) wv[static_cast<size_t>(i)] = 0.25f * static_cast<float>(i) - 1.f;
  if (wHow == "raw")
    w.set_raw_data(std::string(reinterpret_cast<const char*>(wv.data()), 48));
  else
    for (float f : wv) w.add_float_data(f);
  if (wHow == "constant-node") {
    auto* c = g->add_node();
    c->set_op_type("Constant");
    c->set_name("wconst");
    c->add_output("W");
    auto* a = c->add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto::TENSOR);
    *a->mutable_t() = w;
  } else {
    *g->add_initializer() = w;
  }
  onnx::TensorProto b;
  b.set_name("b");
  b.set_data_type(onnx::TensorProto::FLOAT);
  b.add_dims(3);
  for (float f : {0.5f, -0.5f, 1.f}) b.add_float_data(f);
  *g->add_initializer() = b;
  auto* mm = g->add_node();
  mm->set_op_type("MatMul");
  mm->set_name("mm");
  mm->add_input("x");
  mm->add_input("W");
  mm->add_output("t");
  auto* add = g->add_node();
  add->set_op_type("Add");
  add->set_name("bias");
  add->add_input("t");
  add->add_input("b");
  add->add_output("y");
  g->add_output()->set_name("y");
  setShape(g->mutable_output(0), {batch < 0 ? 1 : batch, 3});
  return m;
}

std::string bytes(const onnx::ModelProto& m) { return m.SerializeAsString(); }

/// The message of the Error that importing `data` throws (one line, named after "model.onnx").
std::string importError(const std::string& data) {
  try {
    importOnnxBytes(data, "model.onnx");
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    EXPECT_EQ(what.rfind("model.onnx: error: ", 0), 0u) << what;
    return e.message();
  }
  ADD_FAILURE() << "import succeeded";
  return "";
}

TEST(OnnxImport, WeightsFromRawTypedAndConstantNodesAgree) {
  std::vector<float> first;
  for (const std::string how : {"raw", "typed", "constant-node"}) {
    const Graph g = importOnnxBytes(bytes(linearModel(14, how)), "m.onnx");
    EXPECT_EQ(g.opset, 14);
    ASSERT_EQ(g.inputs.size(), 1u);
    EXPECT_EQ(g.values[static_cast<size_t>(g.inputs[0])].shape, (Shape{2, 4}));
    const int w = g.findValue("W");
    ASSERT_GE(w, 0);
    EXPECT_TRUE(g.values[static_cast<size_t>(w)].is_constant) << how;
    EXPECT_EQ(g.values[static_cast<size_t>(g.findValue("t"))].shape, (Shape{2, 3}));
    const auto out = compiler::interpret(g, {{"x", floatTensor({2, 4}, {1, 2, 3, 4, -1, 0, 1, 0})}});
    const auto y = values(out.at("y"));
    if (first.empty()) first = y;
    EXPECT_EQ(y, first) << how;
  }
  // Row 0: x = [1,2,3,4], W[k][n] = 0.25 * (3k + n) - 1, plus b.
  EXPECT_FLOAT_EQ(first[0], 1 * -1.f + 2 * -0.25f + 3 * 0.5f + 4 * 1.25f + 0.5f);
}

TEST(OnnxImport, SymbolicBatchIsBoundToOne) {
  const Graph g = importOnnxBytes(bytes(linearModel(13, "raw", -1)), "m.onnx");
  EXPECT_EQ(g.values[static_cast<size_t>(g.inputs[0])].shape, (Shape{1, 4}));
  EXPECT_EQ(g.values[static_cast<size_t>(g.outputs[0])].shape, (Shape{1, 3}));
}

TEST(OnnxImport, OpsetRange) {
  EXPECT_NO_THROW(importOnnxBytes(bytes(linearModel(9, "raw")), "m"));
  EXPECT_NO_THROW(importOnnxBytes(bytes(linearModel(17, "raw")), "m"));
  EXPECT_EQ(importError(bytes(linearModel(8, "raw"))), "opset 8 is not supported (supported: 9 to 17)");
  EXPECT_EQ(importError(bytes(linearModel(18, "raw"))), "opset 18 is not supported (supported: 9 to 17)");
}

TEST(OnnxImport, NotOnnxAtAll) {
  EXPECT_NE(importError("this is plain text, not a protobuf\n").find("not an ONNX model"), std::string::npos);
  EXPECT_NE(importError("").find("not an ONNX model"), std::string::npos);
  const std::string full = bytes(linearModel(14, "raw"));
  EXPECT_NE(importError(full.substr(0, full.size() / 2)).find("not an ONNX model"), std::string::npos);
}

TEST(OnnxImport, UnsupportedOperatorNamesTheNode) {
  auto m = linearModel(14, "raw");
  m.mutable_graph()->mutable_node(1)->set_op_type("NonMaxSuppression");
  EXPECT_EQ(importError(bytes(m)), "node 'bias' (NonMaxSuppression): unsupported operator");
  m.mutable_graph()->mutable_node(1)->set_op_type("Add");
  m.mutable_graph()->mutable_node(1)->set_domain("com.microsoft");
  EXPECT_EQ(importError(bytes(m)), "node 'bias' (Add): unsupported operator (domain 'com.microsoft')");
}

TEST(OnnxImport, MissingInitializerNamesTheReader) {
  auto m = linearModel(14, "raw");
  m.mutable_graph()->mutable_initializer()->DeleteSubrange(0, 1);  // W
  const std::string msg = importError(bytes(m));
  EXPECT_EQ(msg.rfind("node 'mm' (MatMul): input 'W' is neither", 0), 0u) << msg;
  EXPECT_NE(msg.find("missing initializer"), std::string::npos);
}

TEST(OnnxImport, InconsistentShapesNameTheNode) {
  auto m = linearModel(14, "raw");
  m.mutable_graph()->mutable_initializer(1)->set_dims(0, 5);  // b [5] does not broadcast with [2, 3]
  m.mutable_graph()->mutable_initializer(1)->add_float_data(0.f);
  m.mutable_graph()->mutable_initializer(1)->add_float_data(0.f);
  const std::string msg = importError(bytes(m));
  EXPECT_EQ(msg.rfind("node 'bias' (Add): inconsistent shapes", 0), 0u) << msg;

  auto declared = linearModel(14, "raw");
  setShape(declared.mutable_graph()->mutable_output(0), {2, 7});
  declared.mutable_graph()
      ->mutable_output(0)
      ->mutable_type()
      ->mutable_tensor_type()
      ->mutable_shape()
      ->mutable_dim()
      ->DeleteSubrange(0, 2);
  declared.mutable_graph()
      ->mutable_output(0)
      ->mutable_type()
      ->mutable_tensor_type()
      ->mutable_shape()
      ->add_dim()
      ->set_dim_value(2);
  declared.mutable_graph()
      ->mutable_output(0)
      ->mutable_type()
      ->mutable_tensor_type()
      ->mutable_shape()
      ->add_dim()
      ->set_dim_value(7);
  const std::string msg2 = importError(bytes(declared));
  EXPECT_EQ(msg2.rfind("node 'bias' (Add): inconsistent shapes", 0), 0u) << msg2;
}

TEST(OnnxImport, TensorDataThatDoesNotFitItsShape) {
  auto m = linearModel(14, "typed");
  m.mutable_graph()->mutable_initializer(0)->add_float_data(1.f);  // 13 values for [4, 3]
  EXPECT_NE(importError(bytes(m)).find("'W'"), std::string::npos);
}

TEST(OnnxImport, NonFloatInputsAndExternalData) {
  auto m = linearModel(14, "raw");
  m.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::DOUBLE);
  EXPECT_EQ(importError(bytes(m)), "graph input 'x' has element type DOUBLE; only float32 models are supported");
  auto ext = linearModel(14, "raw");
  auto* w = ext.mutable_graph()->mutable_initializer(0);
  w->clear_raw_data();
  w->set_data_location(onnx::TensorProto::EXTERNAL);
  auto* e = w->add_external_data();
  e->set_key("location");
  e->set_value("weights.bin");
  const std::string msg = importError(bytes(ext));
  EXPECT_NE(msg.find("external"), std::string::npos) << "message: " << msg;
}

TEST(OnnxImport, MissingFile) {
  try {
    compiler::importOnnx("/nonexistent/model.onnx");
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "/nonexistent/model.onnx: error: cannot open file");
  }
}

TEST(OnnxImport, SupportedOperatorList) {
  EXPECT_TRUE(compiler::isSupportedOp("Conv"));
  EXPECT_TRUE(compiler::isSupportedOp("LayerNormalization"));
  EXPECT_FALSE(compiler::isSupportedOp("Loop"));
  // Every supported operator has a shape function and a float kernel: an unknown op fails with
  // "no float kernel", a known one with anything else.
  for (const auto& op : compiler::supportedOps()) {
    OneNode one = oneNodeGraph(op, {});
    HostTensor out;
    std::vector<HostTensor*> outs = {&out};
    try {
      compiler::runFloatKernel(one.g, one.g.nodes[0], {}, outs);
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.message()).find("no float kernel"), std::string::npos) << op;
    } catch (const std::exception&) {}
  }
}

TEST(OnnxImport, BundledTinyCnn) {
  const std::string dir = std::string(SYSTOLE_SOURCE_DIR) + "/tests/models/bundled/";
  const Graph g = compiler::importOnnx(dir + "tiny_cnn.onnx");
  EXPECT_EQ(g.opset, 14);
  EXPECT_EQ(g.values[static_cast<size_t>(g.inputs[0])].shape, (Shape{1, 3, 16, 16}));
  int bn = 0;
  for (const auto& n : g.nodes) bn += n.op == "BatchNormalization";
  EXPECT_EQ(bn, 2);
}

}  // namespace
}  // namespace systole::testing
