"""The Pydantic model of the integration tests: a tool input that is a tagged union."""

from typing import Annotated, List, Literal, Optional, Union

from pydantic import BaseModel, Field, TypeAdapter


class Point(BaseModel):
    x: float
    y: float


class Circle(BaseModel):
    kind: Literal["circle"]
    center: Point
    radius: float = Field(gt=0)


class Polygon(BaseModel):
    kind: Literal["polygon"]
    points: List[Point] = Field(min_length=3)
    closed: bool = False


class Label(BaseModel):
    kind: Literal["label"]
    text: str = Field(min_length=1)
    tags: Optional[List[str]] = None


Shape = Annotated[Union[Circle, Polygon, Label], Field(discriminator="kind")]
SHAPE = TypeAdapter(Shape)

VALUES = [
    {"kind": "circle", "center": {"x": 0, "y": 1}, "radius": 2.5},
    {"kind": "polygon", "points": [{"x": 0, "y": 0}, {"x": 1, "y": 0}, {"x": 0, "y": 1}]},
    {"kind": "polygon", "points": [{"x": 0, "y": 0}, {"x": 1, "y": 0}, {"x": 0, "y": 1}], "closed": True},
    {"kind": "label", "text": "hi"},
    {"kind": "label", "text": "hi", "tags": ["a", "b"]},
    {"kind": "label", "text": "hi", "tags": None},
]
