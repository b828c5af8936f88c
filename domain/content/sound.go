package content

import (
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// soundNode is an audio reference [sound:ID].
type soundNode struct {
	ast.BaseInline
	ID string
}

var kindSound = ast.NewNodeKind("Sound")

// Kind implements ast.Node.
func (n *soundNode) Kind() ast.NodeKind { return kindSound }

// Dump implements ast.Node.
func (n *soundNode) Dump(source []byte, level int) {
	ast.DumpHelper(n, source, level, map[string]string{"ID": n.ID}, nil)
}

// soundParser parses [sound:ID] before the link parser sees the bracket.
type soundParser struct{}

func (soundParser) Trigger() []byte { return []byte{'['} }

func (soundParser) Parse(_ ast.Node, block text.Reader, _ parser.Context) ast.Node {
	line, _ := block.PeekLine()
	const prefix = "[sound:"
	if len(line) < len(prefix)+2 || string(line[:len(prefix)]) != prefix {
		return nil
	}
	end := -1
	for i := len(prefix); i < len(line) && i < len(prefix)+65; i++ {
		if line[i] == ']' {
			end = i
			break
		}
	}
	if end < 0 || !mediaID.Match(line[len(prefix):end]) {
		return nil
	}
	block.Advance(end + 1)
	return &soundNode{ID: string(line[len(prefix):end])}
}

// soundRenderer writes an audio player whose source the sanitiser checks
// and Render resolves like any other media reference.
type soundRenderer struct{}

func (soundRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(kindSound, func(w util.BufWriter, _ []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			_, _ = w.WriteString(`<audio controls src="media:` + n.(*soundNode).ID + `"></audio>`)
		}
		return ast.WalkSkipChildren, nil
	})
}
