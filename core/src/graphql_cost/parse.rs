//! Parses GraphQL executable documents (operations and fragments) into the small tree the cost
//! estimate walks. Type annotations and directives are read and dropped: they never change how
//! many nodes a connection can return.

use super::lexer::{tokenize, Spanned, Token};
use super::{CostError, CostErrorKind};
use std::collections::BTreeMap;

/// Deeper nesting than this is refused, so a hostile document cannot exhaust the stack (the
/// wasm stack is small). Real GitHub queries stay far below it.
pub const MAX_DEPTH: usize = 64;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OperationKind {
    Query,
    Mutation,
    Subscription,
}

/// A literal or variable in argument position.
#[derive(Debug, Clone, PartialEq)]
pub enum Literal {
    Variable(String),
    Int(String),
    Float(String),
    Str(String),
    Bool(bool),
    Null,
    Enum(String),
    List(Vec<Literal>),
    Object(Vec<(String, Literal)>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    pub alias: Option<String>,
    pub name: String,
    pub arguments: Vec<(String, Literal)>,
    pub selections: Vec<Selection>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Selection {
    Field(Field),
    FragmentSpread(String),
    InlineFragment(Vec<Selection>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Operation {
    pub kind: OperationKind,
    pub name: Option<String>,
    /// Default values of variables that declare one.
    pub defaults: BTreeMap<String, Literal>,
    pub selections: Vec<Selection>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Document {
    pub operations: Vec<Operation>,
    pub fragments: BTreeMap<String, Vec<Selection>>,
}

/// Parses an executable document.
pub fn parse_document(source: &str) -> Result<Document, CostError> {
    let tokens = tokenize(source)?;
    let mut parser = Parser { tokens, at: 0 };
    let mut document = Document::default();
    if parser.peek() == &Token::End {
        return Err(parser.error("a definition (the document is empty)"));
    }
    while parser.peek() != &Token::End {
        match parser.peek().clone() {
            Token::Punct('{') => {
                let selections = parser.selection_set(0)?;
                document.operations.push(Operation {
                    kind: OperationKind::Query,
                    name: None,
                    defaults: BTreeMap::new(),
                    selections,
                });
            }
            Token::Name(word)
                if word == "query" || word == "mutation" || word == "subscription" =>
            {
                document.operations.push(parser.operation()?);
            }
            Token::Name(word) if word == "fragment" => {
                parser.bump();
                let name = parser.name()?;
                if name == "on" {
                    return Err(parser.error("a fragment named 'on'"));
                }
                parser.type_condition()?;
                parser.directives(0)?;
                let selections = parser.selection_set(0)?;
                if document
                    .fragments
                    .insert(name.clone(), selections)
                    .is_some()
                {
                    return Err(CostError::new(CostErrorKind::DuplicateFragment { name }));
                }
            }
            _ => return Err(parser.error("an operation or fragment definition")),
        }
    }
    Ok(document)
}

struct Parser {
    tokens: Vec<Spanned>,
    at: usize,
}

impl Parser {
    fn peek(&self) -> &Token {
        &self.tokens[self.at].token
    }

    fn bump(&mut self) -> Token {
        let token = self.tokens[self.at].token.clone();
        if token != Token::End {
            self.at += 1;
        }
        token
    }

    fn error(&self, expected: &str) -> CostError {
        let offset = self.tokens[self.at].offset;
        CostError::new(CostErrorKind::Syntax {
            offset,
            message: format!("expected {expected}"),
        })
    }

    fn expect(&mut self, punct: char) -> Result<(), CostError> {
        if self.peek() == &Token::Punct(punct) {
            self.bump();
            Ok(())
        } else {
            let shown = if punct == '.' {
                "...".to_string()
            } else {
                punct.to_string()
            };
            Err(self.error(&format!("'{shown}'")))
        }
    }

    fn eat(&mut self, punct: char) -> bool {
        let found = self.peek() == &Token::Punct(punct);
        if found {
            self.bump();
        }
        found
    }

    fn name(&mut self) -> Result<String, CostError> {
        match self.peek().clone() {
            Token::Name(name) => {
                self.bump();
                Ok(name)
            }
            _ => Err(self.error("a name")),
        }
    }

    fn deeper(&self, depth: usize) -> Result<usize, CostError> {
        if depth >= MAX_DEPTH {
            Err(CostError::new(CostErrorKind::TooDeep))
        } else {
            Ok(depth + 1)
        }
    }

    fn operation(&mut self) -> Result<Operation, CostError> {
        let kind = match self.name()?.as_str() {
            "query" => OperationKind::Query,
            "mutation" => OperationKind::Mutation,
            _ => OperationKind::Subscription,
        };
        let name = match self.peek() {
            Token::Name(_) => Some(self.name()?),
            _ => None,
        };
        let mut defaults = BTreeMap::new();
        if self.eat('(') {
            while !self.eat(')') {
                self.expect('$')?;
                let variable = self.name()?;
                self.expect(':')?;
                self.type_ref(0)?;
                if self.eat('=') {
                    defaults.insert(variable, self.value(true, 0)?);
                }
                self.directives(0)?;
            }
        }
        self.directives(0)?;
        let selections = self.selection_set(0)?;
        Ok(Operation {
            kind,
            name,
            defaults,
            selections,
        })
    }

    fn type_ref(&mut self, depth: usize) -> Result<(), CostError> {
        let depth = self.deeper(depth)?;
        if self.eat('[') {
            self.type_ref(depth)?;
            self.expect(']')?;
        } else {
            self.name()?;
        }
        self.eat('!');
        Ok(())
    }

    fn type_condition(&mut self) -> Result<(), CostError> {
        match self.name()?.as_str() {
            "on" => self.name().map(|_| ()),
            _ => Err(self.error("'on' and a type")),
        }
    }

    fn directives(&mut self, depth: usize) -> Result<(), CostError> {
        while self.eat('@') {
            self.name()?;
            self.arguments(depth)?;
        }
        Ok(())
    }

    fn arguments(&mut self, depth: usize) -> Result<Vec<(String, Literal)>, CostError> {
        let mut arguments = Vec::new();
        if self.eat('(') {
            if self.peek() == &Token::Punct(')') {
                return Err(self.error("an argument"));
            }
            while !self.eat(')') {
                let name = self.name()?;
                self.expect(':')?;
                arguments.push((name, self.value(false, depth)?));
            }
        }
        Ok(arguments)
    }

    fn value(&mut self, constant: bool, depth: usize) -> Result<Literal, CostError> {
        let depth = self.deeper(depth)?;
        let literal = match self.bump() {
            Token::Punct('$') if !constant => Literal::Variable(self.name()?),
            Token::Int(text) => Literal::Int(text),
            Token::Float(text) => Literal::Float(text),
            Token::Str(text) => Literal::Str(text),
            Token::Name(word) => match word.as_str() {
                "true" => Literal::Bool(true),
                "false" => Literal::Bool(false),
                "null" => Literal::Null,
                _ => Literal::Enum(word),
            },
            Token::Punct('[') => {
                let mut items = Vec::new();
                while !self.eat(']') {
                    items.push(self.value(constant, depth)?);
                }
                Literal::List(items)
            }
            Token::Punct('{') => {
                let mut fields = Vec::new();
                while !self.eat('}') {
                    let name = self.name()?;
                    self.expect(':')?;
                    fields.push((name, self.value(constant, depth)?));
                }
                Literal::Object(fields)
            }
            _ => {
                self.at -= 1;
                return Err(self.error("a value"));
            }
        };
        Ok(literal)
    }

    fn selection_set(&mut self, depth: usize) -> Result<Vec<Selection>, CostError> {
        let depth = self.deeper(depth)?;
        self.expect('{')?;
        let mut selections = Vec::new();
        if self.peek() == &Token::Punct('}') {
            return Err(self.error("a selection"));
        }
        while !self.eat('}') {
            selections.push(self.selection(depth)?);
        }
        Ok(selections)
    }

    fn selection(&mut self, depth: usize) -> Result<Selection, CostError> {
        if self.eat('.') {
            return match self.peek().clone() {
                Token::Name(word) if word != "on" => {
                    self.bump();
                    self.directives(depth)?;
                    Ok(Selection::FragmentSpread(word))
                }
                _ => {
                    if matches!(self.peek(), Token::Name(_)) {
                        self.type_condition()?;
                    }
                    self.directives(depth)?;
                    Ok(Selection::InlineFragment(self.selection_set(depth)?))
                }
            };
        }
        let first = self.name()?;
        let (alias, name) = if self.eat(':') {
            (Some(first), self.name()?)
        } else {
            (None, first)
        };
        let arguments = self.arguments(depth)?;
        self.directives(depth)?;
        let selections = if self.peek() == &Token::Punct('{') {
            self.selection_set(depth)?
        } else {
            Vec::new()
        };
        Ok(Selection::Field(Field {
            alias,
            name,
            arguments,
            selections,
        }))
    }
}
